/** Hostile RESULT bodies, built by hand: each one lies about a count, a length or a depth. */
import { ByteWriter, rowsBody } from "../../fakenode/mod.ts";

/** Rows with zero columns and 2^31-1 rows: no byte is read per row (issue #12 defect 1). */
export const ZERO_COLUMN_HUGE_ROWS = new ByteWriter().int(2).int(0).int(0).int(0x7fffffff).done();

/** Rows with one text column and a cell that declares 2 GiB and carries nothing. */
export const CELL_OVERRUN = (() => {
  const w = new ByteWriter().int(2).int(0x0001).int(1).string("ks").string("t").string("c").short(0x000d);
  return w.int(1).int(0x7fffffff).done();
})();

/** Rows whose metadata declares 2^31-1 columns and carries one. */
export const HUGE_COLUMN_COUNT = new ByteWriter().int(2).int(0x0001).int(0x7fffffff).string("ks").string("t").string("c").short(0x000d).done();

/** A custom (marshal class) column type nested 5460 deep (issue #12 defect 2). */
export const DEEP_FROZEN_CLASS = "FrozenType(".repeat(5460) + "Int32Type" + ")".repeat(5460);

export function rowsWithCustomType(className: string): Uint8Array {
  return rowsBody({ keyspace: "system", table: "local", columns: [{ name: "host_id", type: { custom: className } }], rows: [] });
}

/** A list<list<...<int>>> option nested `depth` deep, in a one-column Rows metadata. */
export function rowsWithNestedListType(depth: number): Uint8Array {
  const w = new ByteWriter().int(2).int(0x0001).int(1).string("ks").string("t").string("c");
  for (let i = 0; i < depth; i++) w.short(0x0020);
  return w.short(0x0009).int(0).done();
}

/** A Rows result that says more pages follow, with a paging state that declares 2 GiB. */
export const PAGING_STATE_OVERRUN = new ByteWriter().int(2).int(0x0002 | 0x0004).int(1).int(0x7fffffff).done();

/** A RESULT of a kind no version defines. */
export const UNKNOWN_RESULT_KIND = new ByteWriter().int(0x7fff).done();

/** A Prepared result whose bind metadata declares 2^31-1 columns. */
export function preparedHugeBindCount(version: number): Uint8Array {
  const w = new ByteWriter().int(4).shortBytes(Uint8Array.of(1, 2, 3, 4));
  if (version >= 5) w.shortBytes(Uint8Array.of(5, 6));
  return w.int(0x0001).int(0x7fffffff).int(0).string("ks").string("t").done();
}

/** A Prepared result whose partition-key index count is 2^31-1. */
export function preparedHugePkCount(version: number): Uint8Array {
  const w = new ByteWriter().int(4).shortBytes(Uint8Array.of(1, 2, 3, 4));
  if (version >= 5) w.shortBytes(Uint8Array.of(5, 6));
  return w.int(0x0001).int(1).int(0x7fffffff).done();
}
