// `npm start`, the container image and the systemd unit start the serving process with the same
// node flags and glibc malloc settings (RSS depends on both, docs/operations.md "Settings"), and
// the settings table documents npm start's values: a value changed in one place only fails here.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startRuntime } from '../../bench/start-runtime.js';
import { ALL_SETTINGS } from '../../cli/settings-registry.js';

const read = (p: string) => fs.readFileSync(p, 'utf8');
// package.json's own defaults, whatever this shell sets.
const npmStart = startRuntime('.', {});
const MALLOC = Object.keys(npmStart.env).filter((k) => k.startsWith('MALLOC_'));

describe('the launchers of the serving process', () => {
  it('npm start sets the glibc malloc settings', () => {
    expect(MALLOC.sort()).toEqual(['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']);
  });

  it('the container image has npm start’s malloc settings and node flags', () => {
    const file = read('deploy/container/Containerfile');
    for (const k of MALLOC) expect(file).toMatch(new RegExp(`^\\s*${k}=${npmStart.env[k]} \\\\$`, 'm'));
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(file);
    expect(JSON.parse(entry![1]!)).toEqual(['node', ...npmStart.args]);
  });

  it('the systemd unit has npm start’s malloc settings and node flags', () => {
    const file = read('deploy/systemd/epg-gateway@.service');
    const env = Object.fromEntries(
      /^Environment=(.*)$/m
        .exec(file)![1]!
        .split(/\s+/)
        .map((kv) => kv.split('=', 2)),
    );
    for (const k of MALLOC) expect(env[k]).toBe(npmStart.env[k]);
    expect(/^ExecStart=(\S+) (.*) \S+gateway\.mjs$/m.exec(file)![2]!.split(' ')).toEqual(npmStart.args);
  });

  it('the settings table documents npm start’s values', () => {
    const documented = new Map(ALL_SETTINGS.map((s) => [s.name, s.default]));
    for (const k of MALLOC) expect(documented.get(k)).toMatchObject({ text: `${npmStart.env[k]} (set by npm start)` });
  });
});
