/**
 * Rows of a prepared SELECT answered with skip-metadata: the commonest result, which the
 * driver reads in place from the event buffer (its blobs are views, not copies). Values
 * must arrive exactly (bigint extremes, NaN, -0, ±Infinity, blob bytes), and a row kept by
 * the caller must keep its values while later results arrive through the same buffers.
 */
import { assertExact } from "../exact.mjs";
import { cell, type Column, Op, preparedBody, preparedIdFor, rowsBody } from "../fakenode/mod.ts";
import { withNode } from "./helpers.ts";

const SELECT = "SELECT k, d, f, v FROM ks.t WHERE k = ?";
const RESULT_COLUMNS: Column[] = [
  { name: "k", type: "bigint" },
  { name: "d", type: "double" },
  { name: "f", type: "float" },
  { name: "v", type: "blob" },
];
const KEYS = [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n];
const DOUBLES = [NaN, -0, Infinity, -Infinity, 5e-324];
const FLOATS = [NaN, -0, Infinity, Math.fround(0.1), -3.4028234663852886e38];

/** Row i's blob: its length and every byte depend on i and the round, so a stale or shifted read shows. */
function blobOf(i: number, round: number): Uint8Array {
  const v = new Uint8Array(32 + (i % 5));
  for (let j = 0; j < v.length; j++) v[j] = (j * 7 + i * 31 + round * 101) & 0xff;
  return v;
}

/** The row the node answers for request i of a round; the driver must return exactly this. */
function expectedRow(i: number, round: number) {
  return { k: KEYS[i % KEYS.length], d: DOUBLES[i % DOUBLES.length], f: FLOATS[i % FLOATS.length], v: blobOf(i, round) };
}

/** A fixed-size big-endian cell, as the node serializes double and float. */
function fixedCell(size: number, write: (view: DataView) => void): Uint8Array {
  const out = new Uint8Array(size);
  write(new DataView(out.buffer));
  return out;
}

function rowCells(row: ReturnType<typeof expectedRow>): Uint8Array[] {
  return [cell.bigint(row.k), fixedCell(8, (v) => v.setFloat64(0, row.d)), fixedCell(4, (v) => v.setFloat32(0, row.f)), row.v];
}

for (const version of [4, 5] as const) {
  Deno.test(`v${version}: a prepared SELECT's rows arrive exactly and keep their blobs while later results arrive`, async () => {
    await withNode({ protocolVersion: version }, async (node, client) => {
      node.on({ opcode: Op.PREPARE }, (req) => ({
        body: preparedBody({ id: preparedIdFor(req.query!), bind: [{ name: "k", type: "bigint" }], pkIndexes: [0], result: RESULT_COLUMNS }, version),
      }));
      // The bound key says which request this is: `round * 1000 + i`.
      node.on({ opcode: Op.EXECUTE }, (req) => {
        const key = req.params!.values[0] as Uint8Array;
        const tag = Number(new DataView(key.buffer, key.byteOffset, key.byteLength).getBigInt64(0));
        const row = expectedRow(tag % 1000, Math.floor(tag / 1000));
        return { body: rowsBody({ columns: RESULT_COLUMNS, noMetadata: true, rows: [rowCells(row)] }) };
      });
      await client.connect();
      const round = (r: number, count: number) =>
        Promise.all(Array.from({ length: count }, (_, i) => client.execute(SELECT, [BigInt(r * 1000 + i)], { prepare: true })));
      const kept = await round(0, 40);
      // Later rounds' responses go through the same event buffers and the same core memory.
      for (let r = 1; r <= 5; r++) {
        const later = await round(r, 40);
        later.forEach((rs, i) => assertExact(rs.rows, [expectedRow(i, r)], `round ${r}, request ${i}`));
      }
      kept.forEach((rs, i) => {
        assertExact(rs.rows, [expectedRow(i, 0)], `kept request ${i}`);
        assertExact(rs.rowLength, 1);
        assertExact(rs.first(), expectedRow(i, 0));
        assertExact(rs.columns.map((c: { name: string; type: string }) => [c.name, c.type]), [["k", "bigint"], ["d", "double"], ["f", "float"], ["v", "blob"]]);
      });
      // Every EXECUTE asked the node to skip the metadata: the rows above took the in-place path.
      const executes = node.userRequests().filter((r) => r.op === "EXECUTE");
      assertExact(executes.length, 240);
      assertExact(executes.every((r) => r.params?.skipMetadata === true), true);
    });
  });
}
