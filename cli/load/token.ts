// Murmur3Partitioner tokens of partition keys, computed from converted values, so that rows
// can be grouped by the replicas that own them (`--batch-by replica`) and batches sent to one
// of those replicas (`routingToken`). The driver routes single statements itself but does not
// expose token computation, hence this copy of Cassandra's algorithm.
//
// Cassandra's MurmurHash3_x64_128 differs from the reference in one way: tail bytes are read
// as signed Java bytes and sign-extended before being shifted in. The token is the first
// 64-bit half as a signed long, with Long.MIN_VALUE mapped to Long.MAX_VALUE.

import type { CqlType } from "../cql_type.ts";

const MASK = (1n << 64n) - 1n;
const C1 = 0x87c37b91114253d5n;
const C2 = 0x4cf5ad432745937fn;

function rotl(value: bigint, bits: bigint): bigint {
  return ((value << bits) | (value >> (64n - bits))) & MASK;
}

function fmix(value: bigint): bigint {
  let k = value;
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & MASK;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & MASK;
  k ^= k >> 33n;
  return k;
}

function readLittleEndian64(bytes: Uint8Array, offset: number): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 8);
  return view.getBigUint64(0, true);
}

function tailWord(bytes: Uint8Array, from: number, to: number): bigint {
  let k = 0n;
  for (let i = from; i < to; i++) {
    const signed = BigInt.asUintN(64, BigInt((bytes[i] << 24) >> 24));
    k ^= (signed << BigInt(8 * (i - from))) & MASK;
  }
  return k;
}

export const MIN_TOKEN = -(1n << 63n);
export const MAX_TOKEN = (1n << 63n) - 1n;

/** The token of a routing key (the serialized partition key), as Cassandra computes it. */
export function murmur3Token(key: Uint8Array): bigint {
  if (key.length === 0) return MIN_TOKEN;
  let h1 = 0n;
  let h2 = 0n;
  const blocks = Math.floor(key.length / 16);
  for (let block = 0; block < blocks; block++) {
    let k1 = readLittleEndian64(key, block * 16);
    let k2 = readLittleEndian64(key, block * 16 + 8);
    k1 = (k1 * C1) & MASK;
    k1 = rotl(k1, 31n);
    k1 = (k1 * C2) & MASK;
    h1 ^= k1;
    h1 = rotl(h1, 27n);
    h1 = (h1 + h2) & MASK;
    h1 = (h1 * 5n + 0x52dce729n) & MASK;
    k2 = (k2 * C2) & MASK;
    k2 = rotl(k2, 33n);
    k2 = (k2 * C1) & MASK;
    h2 ^= k2;
    h2 = rotl(h2, 31n);
    h2 = (h2 + h1) & MASK;
    h2 = (h2 * 5n + 0x38495ab5n) & MASK;
  }
  const tail = blocks * 16;
  const rest = key.length - tail;
  if (rest > 8) {
    let k2 = tailWord(key, tail + 8, key.length);
    k2 = (k2 * C2) & MASK;
    k2 = rotl(k2, 33n);
    k2 = (k2 * C1) & MASK;
    h2 ^= k2;
  }
  if (rest > 0) {
    let k1 = tailWord(key, tail, tail + Math.min(rest, 8));
    k1 = (k1 * C1) & MASK;
    k1 = rotl(k1, 31n);
    k1 = (k1 * C2) & MASK;
    h1 ^= k1;
  }
  const length = BigInt(key.length);
  h1 ^= length;
  h2 ^= length;
  h1 = (h1 + h2) & MASK;
  h2 = (h2 + h1) & MASK;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 = (h1 + h2) & MASK;
  const token = BigInt.asIntN(64, h1);
  return token === MIN_TOKEN ? MAX_TOKEN : token;
}

const encoder = new TextEncoder();

function fixed(size: number, write: (view: DataView) => void): Uint8Array {
  const bytes = new Uint8Array(size);
  write(new DataView(bytes.buffer));
  return bytes;
}

function uuidBytes(text: string): Uint8Array {
  const hex = text.replace(/-/g, "");
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function inetBytes(text: string): Uint8Array | null {
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) return Uint8Array.from(v4.slice(1).map(Number));
  if (!text.includes(":") || text.includes(".")) return null;
  const [head, tail] = text.split("::");
  const headParts = head ? head.split(":") : [];
  const tailParts = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const missing = 8 - headParts.length - tailParts.length;
  if (text.includes("::") ? missing < 0 : missing !== 0) return null;
  const groups = [...headParts, ...Array(text.includes("::") ? missing : 0).fill("0"), ...tailParts];
  return fixed(16, (view) => groups.forEach((group, i) => view.setUint16(2 * i, parseInt(group, 16))));
}

const EPOCH_DAY_OFFSET = 2 ** 31;

/** The bytes Cassandra hashes for a value of a partition key column, or null if not supported here. */
export function serializeKeyValue(value: unknown, type: CqlType): Uint8Array | null {
  if (type.kind !== "native" || value === null || value === undefined) return null;
  switch (type.name) {
    case "int":
      return fixed(4, (view) => view.setInt32(0, value as number));
    case "smallint":
      return fixed(2, (view) => view.setInt16(0, value as number));
    case "tinyint":
      return fixed(1, (view) => view.setInt8(0, value as number));
    case "bigint":
    case "counter":
      return fixed(8, (view) => view.setBigInt64(0, BigInt(value as bigint)));
    case "text":
    case "varchar":
    case "ascii":
      return encoder.encode(value as string);
    case "uuid":
    case "timeuuid":
      return uuidBytes(value as string);
    case "timestamp":
      return fixed(8, (view) => view.setBigInt64(0, BigInt((value as Date).getTime())));
    case "boolean":
      return Uint8Array.of(value ? 1 : 0);
    case "blob":
      return value as Uint8Array;
    case "double":
      return fixed(8, (view) => view.setFloat64(0, value as number));
    case "float":
      return fixed(4, (view) => view.setFloat32(0, value as number));
    case "date": {
      const [year, month, day] = (value as string).split("-").map(Number);
      const date = new Date(0);
      date.setUTCFullYear(year, month - 1, day);
      const days = Math.round(date.getTime() / 86_400_000);
      return fixed(4, (view) => view.setUint32(0, days + EPOCH_DAY_OFFSET));
    }
    case "time": {
      const match = /^(\d{2}):(\d{2}):(\d{2})\.(\d{9})$/.exec(value as string);
      if (!match) return null;
      const nanos = ((BigInt(match[1]) * 60n + BigInt(match[2])) * 60n + BigInt(match[3])) * 1_000_000_000n +
        BigInt(match[4]);
      return fixed(8, (view) => view.setBigInt64(0, nanos));
    }
    case "inet":
      return inetBytes(value as string);
    default:
      return null;
  }
}

/** A composite key is each component as [u16 length][bytes][0]; a single one is its bytes. */
export function routingKey(components: Uint8Array[]): Uint8Array {
  if (components.length === 1) return components[0];
  let size = 0;
  for (const component of components) size += 3 + component.length;
  const key = new Uint8Array(size);
  let at = 0;
  for (const component of components) {
    key[at] = component.length >> 8;
    key[at + 1] = component.length & 0xff;
    key.set(component, at + 2);
    at += 3 + component.length;
  }
  return key;
}

/** Computes tokens for rows given the positions and types of the partition key columns. */
export class TokenCalculator {
  constructor(private readonly keyPositions: number[], private readonly keyTypes: CqlType[]) {}

  static supports(types: CqlType[]): boolean {
    const supported = new Set([
      "int",
      "smallint",
      "tinyint",
      "bigint",
      "text",
      "varchar",
      "ascii",
      "uuid",
      "timeuuid",
      "timestamp",
      "boolean",
      "blob",
      "double",
      "float",
      "date",
      "time",
      "inet",
    ]);
    return types.length > 0 && types.every((type) => type.kind === "native" && supported.has(type.name));
  }

  /** The token of a row's values, or null when a key value cannot be serialized. */
  tokenOf(values: readonly unknown[]): bigint | null {
    const components: Uint8Array[] = [];
    for (let i = 0; i < this.keyPositions.length; i++) {
      const bytes = serializeKeyValue(values[this.keyPositions[i]], this.keyTypes[i]);
      if (bytes === null) return null;
      components.push(bytes);
    }
    return murmur3Token(routingKey(components));
  }
}

/** The replicas of a token, from getTokenRanges' ranges `(start, end]` (the first one wraps). */
export class ReplicaMap {
  private readonly ends: bigint[];
  private readonly replicas: string[][];

  constructor(ranges: Array<{ start: bigint; end: bigint; replicas: string[] }>) {
    const sorted = [...ranges].sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
    this.ends = sorted.map((range) => range.end);
    this.replicas = sorted.map((range) => [...range.replicas].sort());
  }

  get size(): number {
    return this.ends.length;
  }

  /** A key naming the replica set that owns `token`. */
  replicaKey(token: bigint): string {
    if (this.ends.length === 0) return "";
    let low = 0;
    let high = this.ends.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.ends[middle] < token) low = middle + 1;
      else high = middle;
    }
    // Beyond the last end, the token belongs to the wrapping range, owned like the first end.
    const index = low === this.ends.length ? 0 : low;
    return this.replicas[index].join(",");
  }
}
