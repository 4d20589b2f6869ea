// What the benchmark reads of a process and of the machine from /proc (Linux): memory, CPU time by
// thread, the machine's busy share; and Redis' own CPU time.
import fs from 'node:fs';
import { connectRedis } from '../../cache/redis-connection.js';
import { opts } from './flags.js';
import { type Gateway, heapOf } from './gateway.js';

/**
 * A gateway's memory right after its load (RSS, peak, V8 heap), and its RSS again after --settle
 * seconds of idle: V8 returns memory once its memory reducer runs on an idle process.
 */
export async function memoryAfterRun(g: Gateway): Promise<MemoryReading> {
  const reading: MemoryReading = { ...memoryWithChildren(g.child.proc.pid), ...(await heapOf(g.urls.metrics)) };
  if (opts.settle > 0) {
    await new Promise((r) => setTimeout(r, opts.settle * 1000));
    reading.settledRssMb = memoryWithChildren(g.child.proc.pid).rssMb;
    reading.settleSeconds = opts.settle;
  }
  return reading;
}

export interface MemoryReading {
  rssMb: number | null;
  peakRssMb: number | null;
  heapUsedMb?: number;
  heapTotalMb?: number;
  externalMb?: number;
  settledRssMb?: number | null;
  settleSeconds?: number;
}

/** Which of the gateway's processes a pid is: its parent sets a variable naming each helper process. */
function processRole(pid: number | undefined): 'serving' | 'playground' | 'admin' {
  try {
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
    if (/(^|\0)PLAYGROUND_CHILD_NICE=/.test(environ)) return 'playground';
    if (/(^|\0)ADMIN_CHILD_NICE=/.test(environ)) return 'admin';
  } catch {
    // not on Linux, or gone
  }
  return 'serving';
}

/** The gateway's memory plus its child processes' (the playground and admin processes under `npm start`), MB from /proc (Linux). */
export function memoryWithChildren(pid: number | undefined): {
  rssMb: number | null;
  peakRssMb: number | null;
  /** By role: serving (the keyed process), playground, admin. */
  rssByProcessMb: Record<string, number | null>;
  pids: Record<string, number | undefined>;
} {
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // not on Linux, or gone
  }
  const procs = [pid, ...children].map((p) => ({ pid: p, role: processRole(p), ...memoryOf(p) }));
  const sum = (k: 'rssMb' | 'peakRssMb') =>
    procs.every((m) => m[k] !== null) ? Math.round(procs.reduce((a, m) => a + m[k]!, 0) * 10) / 10 : null;
  return {
    rssMb: sum('rssMb'),
    peakRssMb: sum('peakRssMb'),
    rssByProcessMb: Object.fromEntries(procs.map((m) => [m.role, m.rssMb])),
    pids: Object.fromEntries(procs.map((m) => [m.role, m.pid])),
  };
}

export function memoryOf(pid: number | undefined): { rssMb: number | null; peakRssMb: number | null } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Math.round(Number(m[1]) / 102.4) / 10 : null;
    };
    return { rssMb: kb('VmRSS'), peakRssMb: kb('VmHWM') };
  } catch {
    return { rssMb: null, peakRssMb: null };
  }
}

// Gateway

/** CPU time (user + system) a process has used so far, ms (Linux /proc/<pid>/stat). */
export function cpuMsOf(pid: number | undefined): number | null {
  try {
    const t = statTimes(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return t.userMs + t.sysMs;
  } catch {
    return null;
  }
}

/** User and system time (ms) and minor page faults of a /proc stat line (a process's or a thread's). */
function statTimes(stat: string): { userMs: number; sysMs: number; minorFaults: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // minflt, utime and stime are fields 10, 14 and 15 of the whole line; times in clock ticks (100 Hz on Linux).
  return { userMs: (Number(fields[11]) * 1000) / 100, sysMs: (Number(fields[12]) * 1000) / 100, minorFaults: Number(fields[7]) };
}

/**
 * CPU time so far, ms: the main thread's user and system time, and every other thread's (libuv's
 * pool: deflate, file writes; V8's: compiles, parallel and concurrent GC). Node names them all
 * "node", so they are not told apart.
 */
export function threadCpuMsOf(pid: number | undefined): Record<'mainUser' | 'mainSys' | 'otherThreads' | 'minorFaults', number> | null {
  const out = { mainUser: 0, mainSys: 0, otherThreads: 0, minorFaults: 0 };
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // the thread ended
      }
      const t = statTimes(stat);
      // Page faults are counted as if they were µs, so the split reports faults per request.
      out.minorFaults += t.minorFaults / 1000;
      if (tid === String(pid)) {
        out.mainUser += t.userMs;
        out.mainSys += t.sysMs;
      } else out.otherThreads += t.userMs + t.sysMs;
    }
  } catch {
    return null;
  }
  return out;
}

/** Redis' own CPU time so far (INFO cpu: used_cpu_user + used_cpu_sys), in ms. */
export async function redisCpuMs(url: string): Promise<number | null> {
  const client = await connectRedis(url);
  try {
    const info = await client.info('cpu');
    const user = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]);
    const sys = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
    return Number.isFinite(user + sys) ? (user + sys) * 1000 : null;
  } finally {
    client.disconnect();
  }
}

/** All CPUs' busy and total time so far (Linux /proc/stat, clock ticks); null elsewhere. */
export function machineCpu(): { busy: number; total: number } | null {
  try {
    const t = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    const total = t.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - t[3]! - t[4]!, total };
  } catch {
    return null;
  }
}
