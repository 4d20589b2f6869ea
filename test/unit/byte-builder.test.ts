// lib/byte-builder.ts: text gathered as UTF-8 bytes in growing buffers, handed out in batches; and
// buffers reused across batches: a released or moved-off buffer goes back to the pool, never while
// a view of it may still be read, and the pool keeps no more than its bound.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BufferPool, ByteBuilder } from '../../lib/byte-builder.js';

describe('BufferPool', () => {
  it('hands back a kept buffer large enough, else a new one; keeps no more than its bound', () => {
    const pool = new BufferPool(1000);
    const a = pool.take(600);
    expect(a.length).toBe(600);
    pool.give(a);
    expect(pool.bytes).toBe(600);
    // Too small for the request: a new buffer, the kept one stays.
    const b = pool.take(700);
    expect(b).not.toBe(a);
    expect(pool.bytes).toBe(600);
    // Past the bound: left to the collector.
    pool.give(b);
    expect(pool.bytes).toBe(600);
    expect(pool.take(100)).toBe(a);
    expect(pool.bytes).toBe(0);
    pool.give(Buffer.alloc(0));
    expect(pool.bytes).toBe(0);
  });
});

describe('ByteBuilder with a pool', () => {
  it('a released builder’s buffer is the next builder’s', () => {
    const pool = new BufferPool(1 << 20);
    const first = new ByteBuilder(4096, { pool });
    first.append('a'.repeat(100));
    const view = first.bytes();
    first.release();
    expect(pool.bytes).toBe(4096);
    const second = new ByteBuilder(4096, { pool });
    second.append('b'.repeat(100));
    expect(second.bytes().buffer).toBe(view.buffer);
    expect(second.bytes().byteOffset).toBe(view.byteOffset);
    expect(pool.bytes).toBe(0);
  });

  it('hands out no views to keep unless its owner says when they are read', () => {
    const pool = new BufferPool(1 << 20);
    expect(() => new ByteBuilder(64, { pool }).take()).toThrow(/reuses its buffers/);
  });

  it('with a retired hook, views taken stay intact: a full buffer goes to the owner, not back to the pool', () => {
    const pool = new BufferPool(1 << 20);
    const retired: Buffer[] = [];
    const b = new ByteBuilder(256, { pool, retired: (buf) => retired.push(buf) });
    const taken: { view: Buffer; text: string }[] = [];
    for (let i = 0; i < 50; i++) {
      const text = `line ${i} ${'x'.repeat(i)}\n`;
      b.append(text);
      taken.push({ view: b.take(), text });
    }
    expect(retired.length).toBeGreaterThan(0);
    expect(pool.bytes).toBe(0);
    for (const t of taken) expect(t.view.toString('utf8')).toBe(t.text);
    // Every taken view lies in a retired buffer or the current one.
    const current = (b.bytes() as Buffer).buffer;
    for (const t of taken) expect([...retired.map((r) => r.buffer), current]).toContain(t.view.buffer);
  });
});

describe('ByteBuilder', () => {
  // Pooled, each outgrown buffer goes back to the pool as it grows.
  it.each([false, true])('gathers any text as its UTF-8 bytes, growing as it goes (pooled: %s)', (pooled) => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 300 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 64 }),
        (parts, capacity) => {
          const pool = pooled ? new BufferPool(1 << 20) : null;
          const b = new ByteBuilder(capacity, pool && { pool });
          for (const p of parts) b.append(p);
          expect(b.bytes().toString('utf8')).toBe(parts.join(''));
          expect(b.length).toBe(Buffer.byteLength(parts.join('')));
          if (!pool) return;
          b.release();
          // Reused by the next builder: what it gathers is its own text only.
          const again = new ByteBuilder(capacity, { pool });
          again.append('next');
          expect(again.bytes().toString('utf8')).toBe('next');
        },
      ),
    );
  });

  it('hands out batches that later appends never write over, in one buffer until it is full', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ unit: 'grapheme', maxLength: 200 }), { maxLength: 8 }), { maxLength: 30 }),
        fc.integer({ min: 0, max: 2048 }),
        (batches, capacity) => {
          const b = new ByteBuilder(capacity);
          const taken: Buffer[] = [];
          for (const batch of batches) {
            for (const p of batch) b.append(p);
            expect(b.length).toBe(Buffer.byteLength(batch.join('')));
            taken.push(b.take());
            expect(b.length).toBe(0);
          }
          // Checked after every append: none changed an earlier batch.
          expect(taken.map((t) => t.toString('utf8'))).toEqual(batches.map((batch) => batch.join('')));
        },
      ),
    );
    const b = new ByteBuilder(1024);
    b.append('a'.repeat(100));
    const first = b.take();
    b.append('b'.repeat(100));
    expect(b.take().buffer).toBe(first.buffer);
  });
});
