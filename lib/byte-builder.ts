// Text gathered as UTF-8 in one growing buffer outside the JS heap: a batch of log lines or replay
// records is then one buffer, not hundreds of strings that live through garbage collections.
//
// `take()` hands out what was gathered as a view and goes on writing after it in the same buffer:
// a stream of batches (log lines) allocates a new buffer only when one is full, not per batch.
// Each buffer is memory V8 counts as external, and allocating it by the batch (tens of MB/s under
// load) drove full garbage collections.
export class ByteBuilder {
  private buf: Buffer;
  /** The first byte not yet taken. */
  private start = 0;
  /** Where the next byte goes. */
  private end = 0;

  /** `capacity`: the first buffer's size, and the least of every later one. */
  constructor(private readonly capacity = 16 * 1024) {
    this.buf = Buffer.allocUnsafe(capacity);
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
    const next = Buffer.allocUnsafe(Math.max(pending + more, this.capacity, this.start === 0 ? this.buf.length * 2 : 0));
    this.buf.copy(next, 0, this.start, this.end);
    this.buf = next;
    this.start = 0;
    this.end = pending;
  }

  /** What was gathered and not taken, as a view (later appends go after it). */
  bytes(): Buffer {
    return this.buf.subarray(this.start, this.end);
  }

  /** What was gathered and not taken, as a view that later appends never write over. */
  take(): Buffer {
    const taken = this.buf.subarray(this.start, this.end);
    this.start = this.end;
    return taken;
  }
}
