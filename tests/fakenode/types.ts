/**
 * CQL column types as [option]s (v4/v5 §4.2.5.2) and the cell encoders the default answers
 * need. A type is written as a small tree, e.g. `{ set: "varchar" }`.
 */
import { ByteWriter, utf8 } from "./bytes.ts";

export type CqlType =
  | "ascii" | "bigint" | "blob" | "boolean" | "counter" | "decimal" | "double" | "float" | "int"
  | "timestamp" | "uuid" | "varchar" | "varint" | "timeuuid" | "inet" | "date" | "time"
  | "smallint" | "tinyint" | "duration"
  | { custom: string }
  | { list: CqlType }
  | { set: CqlType }
  | { map: [CqlType, CqlType] };

const SIMPLE: Record<string, number> = {
  ascii: 0x01, bigint: 0x02, blob: 0x03, boolean: 0x04, counter: 0x05, decimal: 0x06, double: 0x07,
  float: 0x08, int: 0x09, timestamp: 0x0b, uuid: 0x0c, varchar: 0x0d, varint: 0x0e, timeuuid: 0x0f,
  inet: 0x10, date: 0x11, time: 0x12, smallint: 0x13, tinyint: 0x14, duration: 0x15,
};

export function writeType(w: ByteWriter, t: CqlType): void {
  if (typeof t === "string") {
    w.short(SIMPLE[t]);
  } else if ("custom" in t) {
    w.short(0x0000).string(t.custom);
  } else if ("list" in t) {
    w.short(0x0020);
    writeType(w, t.list);
  } else if ("set" in t) {
    w.short(0x0022);
    writeType(w, t.set);
  } else {
    w.short(0x0021);
    writeType(w, t.map[0]);
    writeType(w, t.map[1]);
  }
}

// ---- cells ----------------------------------------------------------------------------------

export const cell = {
  text: (s: string): Uint8Array => utf8(s),
  int: (n: number): Uint8Array => new ByteWriter().int(n).done(),
  bigint: (n: bigint): Uint8Array => new ByteWriter().long(n).done(),
  boolean: (b: boolean): Uint8Array => Uint8Array.of(b ? 1 : 0),
  inet4: (ip: string): Uint8Array => Uint8Array.from(ip.split(".").map(Number)),
  /** A uuid from its 32 hex digits (dashes allowed). */
  uuid: (hex: string): Uint8Array => Uint8Array.from(hex.replace(/-/g, "").match(/../g)!.map((h) => parseInt(h, 16))),
  /** A set or list of text: [int] count, then each element as [bytes]. */
  textSet: (items: string[]): Uint8Array => {
    const w = new ByteWriter().int(items.length);
    for (const s of items) w.bytes(utf8(s));
    return w.done();
  },
  textMap: (m: Record<string, string>): Uint8Array => {
    const entries = Object.entries(m);
    const w = new ByteWriter().int(entries.length);
    for (const [k, v] of entries) w.bytes(utf8(k)).bytes(utf8(v));
    return w.done();
  },
};
