/**
 * Big-endian byte writing and reading for the fake node: the [short], [int], [string],
 * [bytes] and [value] notations of the native protocol (v4/v5 §3). Written for this test
 * server alone, on purpose independent of the driver's codec: a fake server that shares the
 * client's codec would agree with the client's bugs.
 */

export class ByteWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  byte(n: number): this {
    this.room(1);
    this.buf[this.len++] = n & 0xff;
    return this;
  }
  short(n: number): this {
    return this.byte(n >>> 8).byte(n);
  }
  int(n: number): this {
    return this.byte(n >>> 24).byte(n >>> 16).byte(n >>> 8).byte(n);
  }
  long(n: bigint): this {
    const u = BigInt.asUintN(64, n);
    return this.int(Number(u >> 32n)).int(Number(u & 0xffffffffn));
  }
  raw(b: Uint8Array): this {
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }
  string(s: string): this {
    const b = utf8(s);
    return this.short(b.length).raw(b);
  }
  longString(s: string): this {
    const b = utf8(s);
    return this.int(b.length).raw(b);
  }
  shortBytes(b: Uint8Array): this {
    return this.short(b.length).raw(b);
  }
  /** [bytes]: null is length -1. */
  bytes(b: Uint8Array | null): this {
    return b === null ? this.int(-1) : this.int(b.length).raw(b);
  }
  stringList(items: string[]): this {
    this.short(items.length);
    for (const s of items) this.string(s);
    return this;
  }
  stringMap(m: Record<string, string>): this {
    const entries = Object.entries(m);
    this.short(entries.length);
    for (const [k, v] of entries) this.string(k).string(v);
    return this;
  }
  stringMultimap(m: Record<string, string[]>): this {
    const entries = Object.entries(m);
    this.short(entries.length);
    for (const [k, v] of entries) this.string(k).stringList(v);
    return this;
  }
  /** [inetaddr] of an IPv4 address. */
  inet4(ip: string): this {
    this.byte(4);
    for (const part of ip.split(".")) this.byte(Number(part));
    return this;
  }
  /** [inetaddr] of an IPv4 (a.b.c.d) or IPv6 (x:x::x) address: its length byte, then the address. */
  inetaddr(ip: string): this {
    if (!ip.includes(":")) return this.inet4(ip);
    const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
    const groups = (s: string | undefined) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
    const front = groups(head);
    const back = groups(tail);
    const all = tail === undefined ? front : [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
    if (all.length !== 8 || all.some((g) => !(g >= 0 && g <= 0xffff))) throw new Error(`not an IPv6 address: ${ip}`);
    this.byte(16);
    for (const g of all) this.short(g);
    return this;
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** Reads what a request body holds; throws a plain Error naming the field on a short body. */
export class ByteReader {
  pos = 0;
  private view: DataView;
  constructor(private b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  get remaining(): number {
    return this.b.length - this.pos;
  }
  private need(n: number, field: string): void {
    if (n < 0 || this.pos + n > this.b.length) throw new Error(`fake node: request body too short for ${field} at byte ${this.pos}`);
  }
  byte(field: string): number {
    this.need(1, field);
    return this.b[this.pos++];
  }
  short(field: string): number {
    this.need(2, field);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }
  int(field: string): number {
    this.need(4, field);
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }
  long(field: string): bigint {
    this.need(8, field);
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return v;
  }
  take(n: number, field: string): Uint8Array {
    this.need(n, field);
    const v = this.b.slice(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  string(field: string): string {
    return text(this.take(this.short(field), field));
  }
  longString(field: string): string {
    return text(this.take(this.int(field), field));
  }
  shortBytes(field: string): Uint8Array {
    return this.take(this.short(field), field);
  }
  bytes(field: string): Uint8Array | null {
    const n = this.int(field);
    return n < 0 ? null : this.take(n, field);
  }
  /** [value]: bytes, null (-1) or unset (-2). */
  value(field: string): Uint8Array | null | "unset" {
    const n = this.int(field);
    if (n === -1) return null;
    if (n === -2) return "unset";
    return this.take(n, field);
  }
  stringMap(field: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (let n = this.short(field); n > 0; n--) out[this.string(field)] = this.string(field);
    return out;
  }
  bytesMap(field: string): Record<string, Uint8Array | null> {
    const out: Record<string, Uint8Array | null> = {};
    for (let n = this.short(field); n > 0; n--) out[this.string(field)] = this.bytes(field);
    return out;
  }
  stringList(field: string): string[] {
    const out: string[] = [];
    for (let n = this.short(field); n > 0; n--) out.push(this.string(field));
    return out;
  }
}

export function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

export function text(b: Uint8Array): string {
  return new TextDecoder().decode(b);
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function fromHex(h: string): Uint8Array {
  const clean = h.replace(/\s+/g, "");
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function toHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
