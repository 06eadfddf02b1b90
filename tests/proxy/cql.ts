/**
 * The little of the CQL native protocol the fault proxy needs: envelope headers, v5 frame
 * headers, server ERROR bodies, and reading EXECUTE/BATCH values and PREPARE texts so the
 * proxy can tell which row a request carries. Test-only code; it trusts nothing it reads and
 * returns null where bytes do not parse.
 */

export const ENVELOPE_HEADER_BYTES = 9;

export const Opcode = {
  ERROR: 0x00,
  STARTUP: 0x01,
  READY: 0x02,
  AUTHENTICATE: 0x03,
  OPTIONS: 0x05,
  SUPPORTED: 0x06,
  QUERY: 0x07,
  RESULT: 0x08,
  PREPARE: 0x09,
  EXECUTE: 0x0a,
  REGISTER: 0x0b,
  EVENT: 0x0c,
  BATCH: 0x0d,
  AUTH_CHALLENGE: 0x0e,
  AUTH_RESPONSE: 0x0f,
  AUTH_SUCCESS: 0x10,
} as const;

export const OPCODE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(Opcode).map(([name, code]) => [code, name]),
);

export function opcodeName(code: number): string {
  return OPCODE_NAMES[code] ?? `0x${code.toString(16).padStart(2, "0")}`;
}

export interface EnvelopeHeader {
  /** The version byte as sent: 0x84 is a v4 response, 0x04 a v4 request. */
  versionByte: number;
  version: number;
  flags: number;
  stream: number;
  opcode: number;
  bodyLength: number;
}

export function readEnvelopeHeader(b: Uint8Array): EnvelopeHeader {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return {
    versionByte: b[0],
    version: b[0] & 0x7f,
    flags: b[1],
    stream: view.getInt16(2),
    opcode: b[4],
    bodyLength: view.getUint32(5),
  };
}

export function writeEnvelopeHeader(versionByte: number, flags: number, stream: number, opcode: number, bodyLength: number): Uint8Array {
  const out = new Uint8Array(ENVELOPE_HEADER_BYTES);
  const view = new DataView(out.buffer);
  out[0] = versionByte;
  out[1] = flags;
  view.setInt16(2, stream);
  out[4] = opcode;
  view.setUint32(5, bodyLength);
  return out;
}

/**
 * v5 outer frame header: 3 bytes (uncompressed) or 5 bytes (LZ4) of little-endian fields,
 * then a CRC24 of them. The payload follows, then a CRC32 trailer.
 */
export function v5HeaderBytes(lz4: boolean): number {
  return lz4 ? 8 : 6;
}

export function readV5PayloadLength(header: Uint8Array): { payloadLength: number; selfContained: boolean } {
  const word = header[0] | (header[1] << 8) | (header[2] << 16);
  return { payloadLength: word & 0x1ffff, selfContained: (word & 0x20000) !== 0 };
}

export const V5_TRAILER_BYTES = 4;

// ---- server errors ------------------------------------------------------------------------

/** A server ERROR the proxy can put in place of a response; JSON-friendly for the HTTP API. */
export type ServerErrorSpec =
  | { name: "Overloaded"; message?: string }
  | { name: "IsBootstrapping"; message?: string }
  | { name: "ServerError"; message?: string }
  | { name: "Unavailable"; consistency: number; required: number; alive: number; message?: string }
  | { name: "WriteTimeout"; consistency: number; received: number; blockFor: number; writeType: string; message?: string }
  | { name: "ReadTimeout"; consistency: number; received: number; blockFor: number; dataPresent: boolean; message?: string };

export const ERROR_CODES: Record<ServerErrorSpec["name"], number> = {
  ServerError: 0x0000,
  Unavailable: 0x1000,
  Overloaded: 0x1001,
  IsBootstrapping: 0x1002,
  WriteTimeout: 0x1100,
  ReadTimeout: 0x1200,
};

class BodyWriter {
  private parts: number[] = [];
  int(n: number): this {
    this.parts.push((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
    return this;
  }
  short(n: number): this {
    this.parts.push((n >>> 8) & 0xff, n & 0xff);
    return this;
  }
  byte(n: number): this {
    this.parts.push(n & 0xff);
    return this;
  }
  string(s: string): this {
    const bytes = new TextEncoder().encode(s);
    this.short(bytes.length);
    for (const b of bytes) this.parts.push(b);
    return this;
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

/** The body of an ERROR message with every field its code defines (protocol v4/v5 §9). */
export function encodeErrorBody(spec: ServerErrorSpec): Uint8Array {
  const w = new BodyWriter().int(ERROR_CODES[spec.name]).string(spec.message ?? `injected ${spec.name} (cqlwire fault proxy)`);
  switch (spec.name) {
    case "Unavailable":
      w.short(spec.consistency).int(spec.required).int(spec.alive);
      break;
    case "WriteTimeout":
      w.short(spec.consistency).int(spec.received).int(spec.blockFor).string(spec.writeType);
      break;
    case "ReadTimeout":
      w.short(spec.consistency).int(spec.received).int(spec.blockFor).byte(spec.dataPresent ? 1 : 0);
      break;
  }
  return w.bytes();
}

export function encodeErrorFrame(versionByte: number, stream: number, spec: ServerErrorSpec): Uint8Array {
  return envelope(versionByte, stream, Opcode.ERROR, encodeErrorBody(spec));
}

export function envelope(versionByte: number, stream: number, opcode: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(ENVELOPE_HEADER_BYTES + body.length);
  out.set(writeEnvelopeHeader(versionByte, 0, stream, opcode, body.length));
  out.set(body, ENVELOPE_HEADER_BYTES);
  return out;
}

export function authenticateBody(authenticator: string): Uint8Array {
  return new BodyWriter().string(authenticator).bytes();
}

/** AUTH_SUCCESS carries a [bytes] token; null here. */
export const AUTH_SUCCESS_BODY = Uint8Array.of(0xff, 0xff, 0xff, 0xff);

// ---- reading request bodies ------------------------------------------------------------------

class BodyReader {
  pos = 0;
  private view: DataView;
  constructor(private b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  private need(n: number): boolean {
    return this.pos + n <= this.b.length;
  }
  u8(): number | null {
    if (!this.need(1)) return null;
    return this.b[this.pos++];
  }
  u16(): number | null {
    if (!this.need(2)) return null;
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }
  i32(): number | null {
    if (!this.need(4)) return null;
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }
  take(n: number): Uint8Array | null {
    if (n < 0 || !this.need(n)) return null;
    const v = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  shortBytes(): Uint8Array | null {
    const n = this.u16();
    return n === null ? null : this.take(n);
  }
  longString(): string | null {
    const n = this.i32();
    if (n === null) return null;
    const b = this.take(n);
    return b === null ? null : new TextDecoder().decode(b);
  }
  /** A [value]: bytes, or null (-1) / unset (-2) as an empty marker. */
  value(): Uint8Array | "null" | "unset" | null {
    const n = this.i32();
    if (n === null) return null;
    if (n === -1) return "null";
    if (n === -2) return "unset";
    return this.take(n);
  }
}

export function hex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/** A statement's bound values, rendered as hex (or "null"/"unset"). */
export type BoundValues = string[];

function readValues(r: BodyReader, named: boolean): BoundValues | null {
  const n = r.u16();
  if (n === null) return null;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (named && r.shortBytes() === null) return null;
    const v = r.value();
    if (v === null) return null;
    out.push(typeof v === "string" ? v : hex(v));
  }
  return out;
}

/** The prepared id and bound values of an EXECUTE body. */
export function readExecute(body: Uint8Array, version: number): { id: string; values: BoundValues } | null {
  const r = new BodyReader(body);
  const id = r.shortBytes();
  if (id === null) return null;
  if (version >= 5 && r.shortBytes() === null) return null;
  if (r.u16() === null) return null;
  const flags = version >= 5 ? r.i32() : r.u8();
  if (flags === null) return null;
  if ((flags & 0x01) === 0) return { id: hex(id), values: [] };
  const values = readValues(r, (flags & 0x40) !== 0);
  return values === null ? null : { id: hex(id), values };
}

/** Each prepared statement of a BATCH body with its values (unprepared ones are skipped). */
export function readBatch(body: Uint8Array): Array<{ id: string; values: BoundValues }> | null {
  const r = new BodyReader(body);
  if (r.u8() === null) return null;
  const n = r.u16();
  if (n === null) return null;
  const out: Array<{ id: string; values: BoundValues }> = [];
  for (let i = 0; i < n; i++) {
    const kind = r.u8();
    if (kind === null) return null;
    let id: string | null = null;
    if (kind === 0) {
      if (r.longString() === null) return null;
    } else {
      const b = r.shortBytes();
      if (b === null) return null;
      id = hex(b);
    }
    const values = readValues(r, false);
    if (values === null) return null;
    if (id !== null) out.push({ id, values });
  }
  return out;
}

export function readPrepareText(body: Uint8Array): string | null {
  return new BodyReader(body).longString();
}

/** The prepared id of a RESULT body of kind Prepared (0x0004), else null. */
export function readPreparedId(body: Uint8Array): string | null {
  const r = new BodyReader(body);
  if (r.i32() !== 0x0004) return null;
  const id = r.shortBytes();
  return id === null ? null : hex(id);
}

/** The [string map] of a STARTUP body. */
export function readStartupOptions(body: Uint8Array): Record<string, string> | null {
  const r = new BodyReader(body);
  const n = r.u16();
  if (n === null) return null;
  const out: Record<string, string> = {};
  const dec = new TextDecoder();
  for (let i = 0; i < n; i++) {
    const k = r.shortBytes();
    const v = r.shortBytes();
    if (k === null || v === null) return null;
    out[dec.decode(k)] = dec.decode(v);
  }
  return out;
}

/** The token of an AUTH_RESPONSE body: for PasswordAuthenticator, `\0user\0password`. */
export function readAuthToken(body: Uint8Array): Uint8Array | null {
  const r = new BodyReader(body);
  const v = r.value();
  return v instanceof Uint8Array ? v : null;
}
