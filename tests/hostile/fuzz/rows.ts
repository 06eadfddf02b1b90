/**
 * Real RESULT bodies for the fuzzer to start from: Rows results with random column types
 * (tuples, UDTs and collections nested a few levels) and cells that are valid encodings of
 * them, Prepared results, and the structural lies a hostile server tells about them (column
 * counts and types that disagree with the rows, types nested past any depth cap).
 */
import { ByteWriter, utf8 } from "../../fakenode/mod.ts";
import type { Rng } from "./rng.ts";

/** A column type as the wire's [option] tree. */
export type FType =
  | { id: number }
  | { id: 0x0000; custom: string }
  | { id: 0x0020 | 0x0022; elem: FType }
  | { id: 0x0021; key: FType; value: FType }
  | { id: 0x0031; fields: FType[] }
  | { id: 0x0030; ks: string; name: string; fields: Array<[string, FType]> };

/** Simple type ids with the size of their cells (-1: variable). */
const SIMPLE: Array<[number, number]> = [
  [0x01, -1], [0x02, 8], [0x03, -1], [0x04, 1], [0x05, 8], [0x06, -1], [0x07, 8], [0x08, 4], [0x09, 4],
  [0x0b, 8], [0x0c, 16], [0x0d, -1], [0x0e, -1], [0x0f, 16], [0x10, 4], [0x11, 4], [0x12, 8], [0x13, 2],
  [0x14, 1], [0x15, -2],
];

export function randomType(rng: Rng, depth = 0): FType {
  const r = rng.int(depth >= 3 ? 1 : 8);
  if (r <= 2 || depth >= 3) return { id: rng.pick(SIMPLE)[0] };
  if (r === 3) return { id: rng.pick([0x20, 0x22] as const), elem: randomType(rng, depth + 1) };
  if (r === 4) return { id: 0x21, key: randomType(rng, depth + 1), value: randomType(rng, depth + 1) };
  if (r === 5) return { id: 0x31, fields: Array.from({ length: rng.range(1, 3) }, () => randomType(rng, depth + 1)) };
  if (r === 6) return { id: 0x30, ks: "ks", name: "u", fields: Array.from({ length: rng.range(1, 3) }, (_, i) => [`f${i}`, randomType(rng, depth + 1)] as [string, FType]) };
  return { id: 0x0000, custom: rng.pick(["org.apache.cassandra.db.marshal.BytesType", "org.apache.cassandra.db.marshal.Int32Type", "com.example.Unknown"]) };
}

export function writeFType(w: ByteWriter, t: FType): void {
  w.short(t.id);
  if ("custom" in t) w.string(t.custom);
  else if ("elem" in t) writeFType(w, t.elem);
  else if ("key" in t) {
    writeFType(w, t.key);
    writeFType(w, t.value);
  } else if (t.id === 0x31 && "fields" in t) {
    w.short(t.fields.length);
    for (const f of t.fields as FType[]) writeFType(w, f);
  } else if ("ks" in t) {
    w.string(t.ks).string(t.name).short(t.fields.length);
    for (const [n, f] of t.fields) {
      w.string(n);
      writeFType(w, f);
    }
  }
}

/** A valid cell of type `t` (null now and then). */
export function randomCell(rng: Rng, t: FType): Uint8Array | null {
  if (rng.chance(0.05)) return null;
  const w = new ByteWriter();
  if ("elem" in t) {
    const n = rng.int(3);
    w.int(n);
    for (let i = 0; i < n; i++) w.bytes(randomCell(rng, t.elem) ?? new Uint8Array(0));
  } else if ("key" in t) {
    const n = rng.int(3);
    w.int(n);
    for (let i = 0; i < n; i++) w.bytes(randomCell(rng, t.key) ?? new Uint8Array(0)).bytes(randomCell(rng, t.value) ?? new Uint8Array(0));
  } else if (t.id === 0x31 && "fields" in t) {
    for (const f of t.fields as FType[]) w.bytes(randomCell(rng, f));
  } else if ("ks" in t) {
    for (const [, f] of t.fields) w.bytes(randomCell(rng, f));
  } else if ("custom" in t) {
    w.raw(rng.bytes(rng.int(6)));
  } else {
    const size = SIMPLE.find(([id]) => id === t.id)?.[1] ?? -1;
    if (size === -2) w.byte(rng.int(64) * 2).byte(0).byte(rng.int(64) * 2); // duration: three one-byte zigzag vints
    else if (size > 0) w.raw(rng.bytes(size));
    else if (t.id === 0x01 || t.id === 0x0d) w.raw(utf8("x".repeat(rng.int(12))));
    else if (t.id === 0x06) w.int(rng.int(10)).raw(rng.bytes(rng.range(1, 4)));
    else w.raw(rng.bytes(t.id === 0x0e ? rng.range(1, 9) : rng.int(16)));
  }
  return w.done();
}

export interface RowsPlan {
  types: FType[];
  rows: Array<Array<Uint8Array | null>>;
  pagingState?: Uint8Array;
}

export function randomRows(rng: Rng, pagingState?: Uint8Array): RowsPlan {
  const types = Array.from({ length: rng.range(1, 5) }, () => randomType(rng));
  const rows = Array.from({ length: rng.int(6) }, () => types.map((t) => randomCell(rng, t)));
  return { types, rows, pagingState };
}

/** <metadata> of rows (also a Prepared result's result metadata). */
function writeMetadata(w: ByteWriter, types: FType[], pagingState?: Uint8Array, columnCount = types.length): void {
  w.int((types.length > 0 ? 0x0001 : 0) | (pagingState ? 0x0002 : 0)).int(columnCount);
  if (pagingState) w.bytes(pagingState);
  if (types.length === 0) return;
  w.string("ks").string("t");
  types.forEach((t, i) => {
    w.string(`c${i}`);
    writeFType(w, t);
  });
}

/** A Rows RESULT body; `lie` makes its counts disagree with what follows. */
export function rowsResult(p: RowsPlan, lie?: { columnCount?: number; rowCount?: number }): Uint8Array {
  const w = new ByteWriter().int(0x0002);
  writeMetadata(w, p.types, p.pagingState, lie?.columnCount ?? p.types.length);
  w.int(lie?.rowCount ?? p.rows.length);
  for (const row of p.rows) for (const c of row) w.bytes(c);
  return w.done();
}

/** A Prepared RESULT body: `binds` int markers, and `result` as its result metadata. */
export function preparedResult(id: Uint8Array, binds: number, result: FType[], version: number): Uint8Array {
  const w = new ByteWriter().int(0x0004).shortBytes(id);
  if (version >= 5) w.shortBytes(id);
  w.int(binds > 0 ? 0x0001 : 0).int(binds).int(0);
  if (binds > 0) {
    w.string("ks").string("t");
    for (let i = 0; i < binds; i++) w.string(`p${i}`).short(0x09);
  }
  writeMetadata(w, result);
  return w.done();
}

/**
 * The structural lies about a rows result: counts and types that disagree with the rows,
 * cells whose lengths lie, types nested past the depth caps, an unknown type id.
 */
export function lyingRows(rng: Rng, p: RowsPlan): { body: Uint8Array; what: string } {
  const kind = rng.int(8);
  const big = () => rng.pick([0x7fffffff, -1, -2, -0x80000000, 0xffff, 65536, 1 << 24]);
  switch (kind) {
    case 0:
      return { body: rowsResult(p, { columnCount: p.types.length + rng.pick([-1, 1, 2, 1000]) }), what: "column count disagrees with the metadata" };
    case 1:
      return { body: rowsResult(p, { rowCount: rng.pick([p.rows.length + 1, big()]) }), what: "row count disagrees with the rows" };
    case 2: {
      const types = p.types.map((t) => (rng.chance(0.5) ? { id: rng.pick(SIMPLE)[0] } : t));
      return { body: rowsResult({ ...p, types }), what: "column types disagree with the cells" };
    }
    case 3: {
      const rows = p.rows.map((r) => r.map((c) => (rng.chance(0.3) ? lengthLie(rng, c) : c)));
      return { body: rowsResult({ ...p, rows }), what: "cells of the wrong size" };
    }
    case 4: {
      // Written flat: the fuzzer's own recursive writer would run out of stack first.
      const depth = rng.pick([65, 129, 300, 2000, 20000]);
      const w = new ByteWriter().int(0x0002).int(0x0001).int(1).string("ks").string("t").string("c");
      for (let i = 0; i < depth; i++) w.short(0x0020);
      return { body: w.short(0x0009).int(0).done(), what: `list type nested ${depth} deep` };
    }
    case 5: {
      const depth = rng.pick([100, 5000]);
      const cls = `${"org.apache.cassandra.db.marshal.FrozenType(".repeat(depth)}org.apache.cassandra.db.marshal.Int32Type${")".repeat(depth)}`;
      return { body: rowsResult({ types: [{ id: 0, custom: cls }], rows: [[new Uint8Array(4)]] }), what: `custom class nested ${depth} deep` };
    }
    case 6: {
      const w = new ByteWriter().int(0x0002).int(0x0001).int(1).string("ks").string("t").string("c").short(rng.pick([0x30, 0x31, 0x40, 0x7777, 0xffff]));
      w.short(0xffff); // a field count (or a garbage id) the bytes do not carry
      return { body: w.int(1).done(), what: "a type whose field count the bytes do not carry" };
    }
    default:
      return { body: rowsResult({ ...p, pagingState: rng.bytes(rng.int(40)) }, { rowCount: p.rows.length }), what: "a paging state nobody asked for" };
  }
}

/** A cell whose [bytes] length disagrees with its type (returned as the cell's content). */
function lengthLie(rng: Rng, c: Uint8Array | null): Uint8Array {
  const n = c?.length ?? 0;
  return rng.bytes(rng.pick([0, 1, 3, n + 1, Math.max(0, n - 1), 17, 300]));
}
