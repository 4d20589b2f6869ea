// A fresh copy of the repository, as a newcomer's clone would be: the files git tracks plus new
// ones not ignored (so local changes are in it), in a temp dir of its own, made a git repository
// (guides run `git diff` and `git checkout`), with the checkout's node_modules linked rather than
// installed again. Nothing the checkout built or wrote (dist/, data/, .mesh/) comes along.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface FreshCopy {
  dir: string;
  remove(): void;
}

export function freshCopy(root: string, prefix = 'epg-fresh-'): FreshCopy {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    const from = path.join(root, file);
    // A file deleted in the work tree but still in the index.
    if (!fs.existsSync(from)) continue;
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, file));
    fs.chmodSync(path.join(dir, file), fs.statSync(from).mode & 0o777);
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=walkthrough', '-c', 'user.email=walkthrough@localhost', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  // The link is not a directory, so .gitignore's node_modules/ does not cover it.
  fs.appendFileSync(path.join(dir, '.git/info/exclude'), '/node_modules\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'fresh copy');
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
