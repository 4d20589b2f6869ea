// Files the operator's commands and the console edit while gateways read them (keys, partners):
// read-modify-write under a lock file (<file>.lock, O_EXCL), atomic replacement (temp file +
// rename), so a reader sees either the old or the new file and two writers both keep their change.
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';

export class StoreFileError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreFileError';
  }
}

/** What identifies a version of a file cheaply: a poller reloads when it changes. */
export interface FileStamp {
  mtimeMs: number;
  size: number;
  ino: number;
}

export async function statStamp(file: string): Promise<FileStamp | null> {
  try {
    const st = await fsp.stat(file);
    return { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  return a && b ? a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino : a === b;
}

export async function ensureDir(file: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
}

export async function writeAtomic(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fh = await fsp.open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(content, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fsp.rename(tmp, file);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await syncDir(path.dirname(file));
}

async function syncDir(dir: string): Promise<void> {
  try {
    const dh = await fsp.open(dir, 'r');
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    // Not every platform can fsync a directory; the rename is still atomic.
  }
}

const LOCK_STALE_MS = 30_000;

export async function withLock<T>(file: string, fn: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const lock = `${file}.lock`;
  const until = Date.now() + timeoutMs;
  let fh: fsp.FileHandle | null = null;
  for (let attempt = 0; !fh; attempt++) {
    try {
      fh = await fsp.open(lock, 'wx', 0o600);
      await fh.writeFile(`${process.pid} ${new Date().toISOString()}\n`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new StoreFileError(`cannot create lock file ${lock}: ${(err as Error).message}`, { cause: err });
      // A lock left by a crashed process: old enough to be certain nobody holds it.
      const st = await fsp.stat(lock).catch(() => null);
      if (st && Date.now() - st.mtimeMs > LOCK_STALE_MS) {
        await fsp.rm(lock, { force: true });
        continue;
      }
      if (Date.now() > until) {
        throw new StoreFileError(
          `${path.basename(file)} is locked by another process (${lock}); if no keys or partners command is running, delete the lock file`,
        );
      }
      await new Promise((r) => setTimeout(r, Math.min(20 + attempt * 10, 200) * (0.5 + Math.random())));
    }
  }
  try {
    return await fn();
  } finally {
    await fh.close().catch(() => {});
    await fsp.rm(lock, { force: true });
  }
}
