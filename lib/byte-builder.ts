// Text gathered as UTF-8 in one growing buffer outside the JS heap: a batch of log lines or replay
// records is then one buffer, not hundreds of strings that live through garbage collections.
//
// `take()` hands out what was gathered as a view and goes on writing after it in the same buffer:
// a stream of batches (log lines) allocates a new buffer only when one is full, not per batch.
// Each buffer is memory V8 counts as external, and allocating it by the batch (tens of MB/s under
// load) drove full garbage collections. With a BufferPool even full buffers are reused: a buffer
// goes back to the pool once nothing reads it (release(), or the owner's `retired` hook).

interface PoolOptions {
  pool: BufferPool;
  /**
   * For a builder whose views are taken (take()): called with each buffer the builder moved off,
   * every view of which was taken; the owner gives it back to the pool once those views are read.
   * Without it, the builder hands out no views to keep and gives moved-off buffers back at once.
   */
  retired?: (buf: Buffer) => void;
}

export class ByteBuilder {
  private buf: Buffer;
  /** The first byte not yet taken. */
  private start = 0;
  /** Where the next byte goes. */
  private end = 0;

  /** `capacity`: the first buffer's size, and the least of every later one. */
  constructor(
    private readonly capacity = 16 * 1024,
    private readonly pooled: PoolOptions | null = null,
  ) {
    this.buf = this.allocate(capacity);
  }

  /** Bytes gathered and not yet taken. */
  get length(): number {
    return this.end - this.start;
  }

  append(text: string): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    if (this.end + text.length * 3 > this.buf.length) this.grow(text.length * 3);
    this.end += this.buf.write(text, this.end);
  }

  /** Moves what is not taken yet into a new buffer with room for `more` bytes; taken views keep the old one. */
  private grow(more: number): void {
    const pending = this.end - this.start;
    const next = this.allocate(Math.max(pending + more, this.capacity, this.start === 0 ? this.buf.length * 2 : 0));
    this.buf.copy(next, 0, this.start, this.end);
    if (this.pooled?.retired) this.pooled.retired(this.buf);
    else this.pooled?.pool.give(this.buf);
    this.buf = next;
    this.start = 0;
    this.end = pending;
  }

  private allocate(size: number): Buffer {
    return this.pooled ? this.pooled.pool.take(size) : Buffer.allocUnsafe(size);
  }

  /** What was gathered and not taken, as a view (later appends go after it). */
  bytes(): Buffer {
    return this.buf.subarray(this.start, this.end);
  }

  /** What was gathered and not taken, as a view that later appends never write over. */
  take(): Buffer {
    if (this.pooled && !this.pooled.retired) throw new Error('this ByteBuilder reuses its buffers: it hands out no views to keep');
    const taken = this.buf.subarray(this.start, this.end);
    this.start = this.end;
    return taken;
  }

  /**
   * Gives the buffer back to the pool for a later builder: every view of it (bytes()) is then free
   * to be written over. The builder is not used after this.
   */
  release(): void {
    this.pooled?.pool.give(this.buf);
    this.buf = EMPTY;
    this.start = this.end = 0;
  }
}

const EMPTY = Buffer.alloc(0);

/** Buffers handed back after use, for the next builders: bounded in the bytes it keeps. */
export class BufferPool {
  private readonly free: Buffer[] = [];
  private kept = 0;

  /** `maxBytes`: the most the pool keeps in all; a buffer that would pass it is left to the collector. */
  constructor(private readonly maxBytes: number) {}

  /** A buffer of at least `size` bytes: a kept one when one is large enough, otherwise a new one. */
  take(size: number): Buffer {
    for (let i = this.free.length - 1; i >= 0; i--) {
      const b = this.free[i]!;
      if (b.length < size) continue;
      this.free.splice(i, 1);
      this.kept -= b.length;
      return b;
    }
    return Buffer.allocUnsafe(size);
  }

  give(buf: Buffer): void {
    if (buf.length === 0 || this.kept + buf.length > this.maxBytes) return;
    this.free.push(buf);
    this.kept += buf.length;
  }

  /** Bytes kept for reuse. */
  get bytes(): number {
    return this.kept;
  }
}
