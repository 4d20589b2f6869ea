import { describe, expect, it } from 'vitest';
import { turnBatch } from '../../server/http/turn-batch.js';

const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('turnBatch: work of one loop turn, run together at its end', () => {
  it('runs nothing before the turn ends, then every item of the turn once, in order', async () => {
    const runs: number[][] = [];
    const add = turnBatch<number>((batch) => runs.push(batch));
    add(1);
    add(2);
    await Promise.resolve();
    add(3);
    expect(runs).toEqual([]);
    await turnEnd();
    expect(runs).toEqual([[1, 2, 3]]);
  });

  it('an item added while a batch runs (or in a later turn) goes into the next batch', async () => {
    const runs: string[][] = [];
    const add = turnBatch<string>((batch) => {
      runs.push(batch);
      if (batch.includes('a')) add('from-run');
    });
    add('a');
    await turnEnd();
    await turnEnd();
    add('b');
    await turnEnd();
    expect(runs).toEqual([['a'], ['from-run'], ['b']]);
  });

  it('items from many sockets of one turn share a batch (timers and I/O of the same turn)', async () => {
    const runs: number[][] = [];
    const add = turnBatch<number>((batch) => runs.push(batch));
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        for (let i = 0; i < 100; i++) add(i);
        resolve();
      }, 1),
    );
    await turnEnd();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toHaveLength(100);
  });
});
