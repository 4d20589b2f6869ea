// Closing what a process opened: newest first, every closer run even when one fails, never twice.
import { describe, expect, it } from 'vitest';
import { closeAll } from '../../lib/closers.js';

describe('closeAll', () => {
  it('runs the closers newest first, reports a failure and still runs the rest, and closes nothing twice', async () => {
    const ran: string[] = [];
    const errors: unknown[] = [];
    const closers = [
      () => void ran.push('redis'),
      async () => {
        ran.push('bus');
        throw new Error('bus gone');
      },
      () => void ran.push('listener'),
    ];
    await closeAll(closers, (err) => errors.push(err));
    expect(ran).toEqual(['listener', 'bus', 'redis']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['bus gone']);
    await closeAll(closers);
    expect(ran).toHaveLength(3);
  });
});
