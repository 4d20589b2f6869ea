// Text gathered as UTF-8 in one growing buffer outside the JS heap: a batch of log lines or replay
// records is then one buffer, not hundreds of strings that live through garbage collections.
export class ByteBuilder {
  private buf: Buffer;
  length = 0;

  constructor(capacity = 16 * 1024) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  append(text: string): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    const room = this.length + text.length * 3;
    if (room > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(room, this.buf.length * 2));
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    this.length += this.buf.write(text, this.length);
  }

  /** What was gathered (a view: the builder is not written to afterwards). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}
