/**
 * A growable big-endian byte writer meant to be reused: `reset()` keeps the allocation, so
 * steady-state encoding allocates nothing.
 */

const utf8 = new TextEncoder();

export class Writer {
  /** The backing storage; only `[0, length)` is meaningful. Replaced when it grows. */
  buf: Uint8Array;
  view: DataView;
  length = 0;

  constructor(initialCapacity = 1024) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
    this.view = new DataView(this.buf.buffer);
  }

  /** Forgets the contents and keeps the storage. */
  reset(): this {
    this.length = 0;
    return this;
  }

  /** The last view `bytes()` made: requests of one statement have one length, so one view serves them. */
  private lastView: Uint8Array | null = null;

  /** The written bytes as a view of the storage: valid until the next write or reset. */
  bytes(): Uint8Array {
    const last = this.lastView;
    if (last !== null && last.length === this.length) return last;
    return (this.lastView = this.buf.subarray(0, this.length));
  }

  /** A copy of the written bytes, safe to keep. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }

  /** Makes room for `n` more bytes and returns where they start. */
  reserve(n: number): number {
    const at = this.length;
    const needed = at + n;
    if (needed > this.buf.length) {
      let capacity = this.buf.length * 2;
      while (capacity < needed) capacity *= 2;
      const grown = new Uint8Array(capacity);
      grown.set(this.buf.subarray(0, at));
      this.buf = grown;
      this.view = new DataView(grown.buffer);
      this.lastView = null;
    }
    this.length = needed;
    return at;
  }

  u8(value: number): void {
    const at = this.reserve(1);
    this.buf[at] = value;
  }

  u16(value: number): void {
    const at = this.reserve(2);
    this.view.setUint16(at, value);
  }

  i16(value: number): void {
    const at = this.reserve(2);
    this.view.setInt16(at, value);
  }

  i32(value: number): void {
    const at = this.reserve(4);
    this.view.setInt32(at, value);
  }

  i64(value: bigint): void {
    const at = this.reserve(8);
    this.view.setBigInt64(at, value);
  }

  f32(value: number): void {
    const at = this.reserve(4);
    this.view.setFloat32(at, value);
  }

  f64(value: number): void {
    const at = this.reserve(8);
    this.view.setFloat64(at, value);
  }

  raw(bytes: Uint8Array): void {
    const at = this.reserve(bytes.length);
    this.buf.set(bytes, at);
  }

  /** Writes `text` as UTF-8 and returns how many bytes that took. */
  utf8(text: string): number {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    const start = this.length;
    this.reserve(text.length * 3);
    const { written } = utf8.encodeInto(text, this.buf.subarray(start));
    this.length = start + written;
    return written;
  }

  /** `[string]`: u16 length then UTF-8. */
  string(text: string): void {
    const lengthAt = this.reserve(2);
    const written = this.utf8(text);
    if (written > 0xffff) throw new RangeError(`string of ${written} bytes does not fit a [string]`);
    this.view.setUint16(lengthAt, written);
  }

  /** Overwrites an i32 written earlier (a length placeholder). */
  patchI32(at: number, value: number): void {
    this.view.setInt32(at, value);
  }

  /** Overwrites a u16 written earlier (a count placeholder). */
  patchU16(at: number, value: number): void {
    this.view.setUint16(at, value);
  }
}
