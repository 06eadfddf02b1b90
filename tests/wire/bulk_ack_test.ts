/**
 * No row of a bulk load is counted as written unless the node answered its request with a
 * success: a fake node answers the load's EXECUTEs and BATCHes with a scripted mix of
 * WriteTimeout, Overloaded, Unavailable, server errors, a closed connection, no answer (a
 * client timeout that orphans the stream id), a success that arrives after the timeout, and
 * a refusal of one bad value inside a batch (which sends the batch again row by row; so does a
 * server error, and a row meeting one again alone is bad, as a value the server cannot read). It
 * keeps the set of rows it applied. Afterwards every input row must be applied or among the
 * bad rows, and the load's count of written rows must equal the input less the bad rows.
 */
import { assertExact } from "../exact.mjs";
import { Consistency as CL, type FakeNode, Op, preparedBody, preparedIdFor, type RecordedRequest, type Reply, type Value, voidBody } from "../fakenode/mod.ts";
import { withNode } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const QUERY = "INSERT INTO ks.t (p, c) VALUES (?, ?)";
const ROWS = 1000;
const PARTITIONS = 8;
/** Rows whose `c` is a multiple of this the node refuses as Invalid, alone or in a batch. */
const INVALID_EVERY = 97;
const TIMEOUT_MS = 150;

const readInt = (v: Value) => (v instanceof Uint8Array ? new DataView(v.buffer, v.byteOffset).getInt32(0) : NaN);

/** The `c` of each row a write request carries. */
function rowsOf(req: RecordedRequest): number[] {
  if (req.opcode === Op.BATCH) return (req.batch?.statements ?? []).map((s) => readInt(s.values[1]));
  return [readInt(req.params?.values[1] ?? null)];
}

/** A small deterministic generator: the same faults on every run, by request order. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * Answers the load's writes with faults, recording the rows of every success it sends, and in
 * `unreadable` the rows answered with a server error in a batch and then alone: the load takes
 * such a row as one the server cannot read (Cassandra 5's 0x0000 for a bad value) and rejects it.
 */
function scriptFaults(node: FakeNode, applied: Set<number>, unreadable: Set<number>): Record<string, number> {
  const random = lcg(14);
  const tally: Record<string, number> = {};
  const inFailedBatch = new Set<number>();
  const ok = (rows: number[]): Reply => {
    for (const c of rows) applied.add(c);
    return { body: voidBody() };
  };
  const answer = (req: RecordedRequest): Reply => {
    const rows = rowsOf(req);
    if (rows.some((c) => c % INVALID_EVERY === 0)) return (tally.invalid = (tally.invalid ?? 0) + 1, { error: { code: 0x2200, message: "bad value" } });
    const r = random();
    const kind = r < 0.4 ? "ok" : r < 0.5 ? "writeTimeout" : r < 0.58 ? "overloaded" : r < 0.64 ? "unavailable" : r < 0.7 ? "serverError" : r < 0.74 ? "close" : r < 0.8 ? "silence" : r < 0.86 ? "late" : "ok";
    tally[kind] = (tally[kind] ?? 0) + 1;
    const writeType = req.opcode === Op.BATCH ? "UNLOGGED_BATCH" : "SIMPLE";
    switch (kind) {
      case "writeTimeout":
        return { error: { code: 0x1100, message: "wt", consistency: CL.ONE, received: 0, blockFor: 1, writeType } };
      case "overloaded":
        return { error: { code: 0x1001, message: "busy" } };
      case "unavailable":
        return { error: { code: 0x1000, message: "u", consistency: CL.ONE, required: 1, alive: 0 } };
      case "serverError":
        if (req.opcode === Op.BATCH) for (const c of rows) inFailedBatch.add(c);
        else if (inFailedBatch.has(rows[0])) unreadable.add(rows[0]);
        return { error: { code: 0x0000, message: "internal" } };
      case "close":
        return { close: true };
      case "silence":
        return { silence: true };
      case "late":
        // Applied, but the answer comes after the client gave up: the stream id is orphaned.
        return { delayMs: TIMEOUT_MS * 3, then: ok(rows) };
      default:
        return ok(rows);
    }
  };
  node.on({ opcode: Op.PREPARE, query: "INSERT INTO ks.t" }, (req) => ({
    body: preparedBody({ id: preparedIdFor(req.query ?? ""), bind: [{ name: "p", type: "int" }, { name: "c", type: "int" }], pkIndexes: [0], result: [] }, req.version),
  }));
  node.on({ opcode: Op.EXECUTE, query: "INSERT INTO ks.t" }, answer);
  node.on({ opcode: Op.BATCH }, answer);
  return tally;
}

async function* csv(): AsyncGenerator<Uint8Array> {
  const lines: string[] = [];
  for (let c = 1; c <= ROWS; c++) lines.push(`${c % PARTITIONS},${c}\n`);
  const bytes = new TextEncoder().encode(lines.join(""));
  for (let at = 0; at < bytes.length; at += 4096) yield bytes.subarray(at, at + 4096);
}

for (const batchSize of [32, 1]) {
  Deno.test(`bulk load under faults (batch size ${batchSize}): every row is applied or a bad row, and only applied rows count`, async () => {
    await withNode({ protocolVersion: 4, client: { policies: { maxAttempts: 3 } } }, async (node, client) => {
      const applied = new Set<number>();
      const unreadable = new Set<number>();
      const tally = scriptFaults(node, applied, unreadable);
      const bad: Any[] = [];
      const state = await client.bulkLoad(csv(), {
        query: QUERY,
        header: false,
        batchSize,
        batchBy: "partition",
        // The fake node has no system_schema: name the key, so rows of a partition share batches.
        keyColumns: ["p", "c"],
        timeout: TIMEOUT_MS,
        maxRetries: 20,
        onBadRow: (row: Any) => void bad.push(row),
      });
      const badRows = bad.map((row) => Number(new TextDecoder().decode(row.raw).split(",")[1])).sort((a, b) => a - b);
      const invalid = Array.from({ length: ROWS }, (_, i) => i + 1).filter((c) => c % INVALID_EVERY === 0);
      const missing = Array.from({ length: ROWS }, (_, i) => i + 1).filter((c) => !applied.has(c) && !badRows.includes(c));
      // Every fault kind happened, so the check covered each path.
      for (const kind of ["ok", "writeTimeout", "overloaded", "unavailable", "serverError", "close", "silence", "late", "invalid"]) {
        assertExact([kind, (tally[kind] ?? 0) > 0], [kind, true]);
      }
      if (batchSize > 1) assertExact(node.sent("BATCH").length > 0, true);
      assertExact(missing, []);
      // Besides the invalid rows, only rows answered with a server error in a batch and then
      // alone may be bad (the session's own retries can hide some of those answers from the load).
      // Such a row may still have been applied by an earlier attempt whose answer the client
      // never read (answered after the timeout, or before a connection closed): a write without
      // an answer is unknown to the load, so the row is reported, never counted as written.
      const byRow = new Map(bad.map((row) => [Number(new TextDecoder().decode(row.raw).split(",")[1]), [row.kind, row.serverCode]]));
      const unread = badRows.filter((c) => !invalid.includes(c));
      assertExact(invalid.map((c) => byRow.get(c)), invalid.map(() => ["rejected", 0x2200]));
      assertExact(unread.map((c) => [c, unreadable.has(c), byRow.get(c)]), unread.map((c) => [c, true, ["rejected", 0x0000]]));
      assertExact([state.counters.rowsOk, state.counters.rowsRejected, state.status.error], [ROWS - badRows.length, badRows.length, null]);
      assertExact(invalid.some((c) => applied.has(c)), false);
    });
  });
}
