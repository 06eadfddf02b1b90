/**
 * Every ERROR code of the v4 and v5 specs, with its full body, from a fake node: the driver
 * raises a ResponseError whose class, code, name, fields and message are asserted exactly.
 * Read_failure/Write_failure carry <numfailures> in v4 and a <reasonmap> in v5.
 */
import { assertExact } from "../exact.mjs";
import { FakeNode, type ServerError } from "../fakenode/mod.ts";
import { Client, ResponseError } from "../../dist/deno.js";

interface ErrorCase {
  error: ServerError;
  name: string;
  /** The fields the driver must expose beyond code, codeName and serverMessage, per version. */
  fields: (version: number) => Record<string, unknown>;
  /** Attempts before the error reaches the caller (a statement not marked idempotent): 1 unless said. */
  attempts?: number;
}

// <reasonmap> endpoints of both address families (an [inetaddr] of 4 or 16 bytes).
const REASONS: Array<[string, number]> = [["10.0.0.1", 0x0001], ["2001:db8::7", 0x0003]];
const none = () => ({});

const CASES: ErrorCase[] = [
  { error: { code: 0x0000, message: "boom" }, name: "ServerError", fields: none },
  { error: { code: 0x000a, message: "bad frame" }, name: "ProtocolError", fields: none },
  { error: { code: 0x0100, message: "bad credentials" }, name: "AuthenticationError", fields: none },
  {
    error: { code: 0x1000, message: "not enough replicas", consistency: 0x0004, required: 3, alive: 1 },
    name: "Unavailable",
    fields: () => ({ consistency: "QUORUM", required: 3, alive: 1 }),
    // Never applied, so retried once whatever the statement; with one node, on the same node.
    attempts: 2,
  },
  { error: { code: 0x1001, message: "too busy" }, name: "Overloaded", fields: none },
  { error: { code: 0x1002, message: "joining" }, name: "IsBootstrapping", fields: none },
  { error: { code: 0x1003, message: "truncate failed" }, name: "TruncateError", fields: none },
  {
    error: { code: 0x1100, message: "write timed out", consistency: 0x0006, received: 1, blockFor: 2, writeType: "SIMPLE" },
    name: "WriteTimeout",
    fields: () => ({ consistency: "LOCAL_QUORUM", received: 1, block_for: 2, write_type: "SIMPLE", contentions: null }),
  },
  {
    error: { code: 0x1100, message: "cas timed out", consistency: 0x0009, received: 0, blockFor: 2, writeType: "CAS", contentions: 7 },
    name: "WriteTimeout",
    // <contentions> exists only in v5.
    fields: (v) => ({ consistency: "LOCAL_SERIAL", received: 0, block_for: 2, write_type: "CAS", contentions: v >= 5 ? 7 : null }),
  },
  {
    error: { code: 0x1200, message: "read timed out", consistency: 0x0001, received: 0, blockFor: 1, dataPresent: true },
    name: "ReadTimeout",
    fields: () => ({ consistency: "ONE", received: 0, block_for: 1, data_present: true }),
  },
  {
    error: { code: 0x1300, message: "read failed", consistency: 0x0005, received: 1, blockFor: 3, reasons: REASONS, dataPresent: false },
    name: "ReadFailure",
    fields: (v) => ({ consistency: "ALL", received: 1, block_for: 3, reasons: v >= 5 ? REASONS : [], num_failures: 2, data_present: false }),
  },
  {
    error: { code: 0x1400, message: "udf threw", keyspace: "ks", function: "f", argTypes: ["int", "text"] },
    name: "FunctionFailure",
    fields: () => ({ keyspace: "ks", function: "f", arg_types: ["int", "text"] }),
  },
  {
    error: { code: 0x1500, message: "write failed", consistency: 0x0002, received: 0, blockFor: 2, reasons: REASONS, writeType: "UNLOGGED_BATCH" },
    name: "WriteFailure",
    fields: (v) => ({ consistency: "TWO", received: 0, block_for: 2, reasons: v >= 5 ? REASONS : [], num_failures: 2, write_type: "UNLOGGED_BATCH" }),
  },
  { error: { code: 0x1600, message: "cdc space full" }, name: "CdcWriteFailure", fields: none },
  {
    error: { code: 0x1700, message: "cas unknown", consistency: 0x0008, received: 1, blockFor: 2 },
    name: "CasWriteUnknown",
    fields: () => ({ consistency: "SERIAL", received: 1, block_for: 2 }),
  },
  { error: { code: 0x2000, message: "line 1:0 no viable alternative" }, name: "SyntaxError", fields: none },
  { error: { code: 0x2100, message: "no SELECT permission" }, name: "Unauthorized", fields: none },
  { error: { code: 0x2200, message: "unconfigured table t" }, name: "Invalid", fields: none },
  { error: { code: 0x2300, message: "bad config" }, name: "ConfigError", fields: none },
  {
    error: { code: 0x2400, message: "table exists", keyspace: "ks", table: "t" },
    name: "AlreadyExists",
    fields: () => ({ keyspace: "ks", table: "t" }),
  },
];

/** The error's values for `keys`, missing ones as undefined. */
function pick(e: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, e[k]]));
}

/** Fields that only some codes define: no other code may carry them. */
const CODE_FIELDS = ["consistency", "required", "alive", "received", "block_for", "write_type", "contentions", "data_present", "reasons", "num_failures", "keyspace", "function", "arg_types", "table", "unprepared_id"];

for (const version of [4, 5] as const) {
  for (const c of CASES) {
    const label = c.error.code === 0x1100 ? `${c.name} ${(c.error as { writeType: string }).writeType}` : c.name;
    Deno.test(`v${version} ERROR 0x${c.error.code.toString(16).padStart(4, "0")} ${label}: class, code, fields, message`, async () => {
      const node = await FakeNode.start();
      node.on({ query: "FROM ks.t" }, { error: c.error });
      const client = new Client({ contactPoints: [node.address], protocolVersion: version, pooling: { heartBeatInterval: 0 } });
      try {
        const e = await client.execute("SELECT a FROM ks.t").then(() => null, (e: unknown) => e);
        if (!(e instanceof ResponseError)) throw new Error(`expected ResponseError, got ${e}`);
        const r = e as unknown as Record<string, unknown>;
        const hex = c.error.code.toString(16).padStart(4, "0");
        assertExact(
          { name: r.name, code: r.code, codeName: r.codeName, serverMessage: r.serverMessage, message: r.message },
          { name: "ResponseError", code: c.error.code, codeName: c.name, serverMessage: c.error.message, message: `${c.name} (0x${hex}) from ${node.address}: ${c.error.message}` },
        );
        const expected = c.fields(version);
        assertExact(pick(r, CODE_FIELDS), { ...pick({}, CODE_FIELDS), ...expected });
        const attempts = c.attempts ?? 1;
        assertExact(pick(r, ["kind", "node", "attempts"]), { kind: "server", node: node.address, attempts });
        // Each attempt the query text as sent.
        assertExact(node.userRequests().map((r) => r.query), Array(attempts).fill("SELECT a FROM ks.t"));
      } finally {
        await client.shutdown();
        await node.stop();
      }
    });
  }
}

Deno.test("v5 ERROR 0x2500 Unprepared: the driver prepares again on that node and executes once more", async () => {
  const node = await FakeNode.start();
  node.on({ opcode: 0x0a, nth: 1 }, (req) => ({ error: { code: 0x2500, message: "unknown id", id: Uint8Array.from(req.id!.match(/../g)!, (h) => parseInt(h, 16)) } }));
  const client = new Client({ contactPoints: [node.address], pooling: { heartBeatInterval: 0 } });
  try {
    await client.execute("SELECT a FROM ks.t WHERE k = ?", [1], { prepare: true });
    assertExact(node.userRequests().map((r) => r.op), ["PREPARE", "EXECUTE", "PREPARE", "EXECUTE"]);
    const [first, second] = node.sent("EXECUTE");
    assertExact(second.id, first.id);
  } finally {
    await client.shutdown();
    await node.stop();
  }
});

for (const version of [4, 5] as const) {
  Deno.test(`v${version} ERROR 0x2500 Unprepared every time: re-prepared 3 times, then raised with its id`, async () => {
    const node = await FakeNode.start();
    const idOf = (hex: string) => Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));
    node.on({ opcode: 0x0a }, (req) => ({ error: { code: 0x2500, message: `Prepared query with ID ${req.id} not found`, id: idOf(req.id!) } }));
    const client = new Client({ contactPoints: [node.address], protocolVersion: version, pooling: { heartBeatInterval: 0 } });
    try {
      const e = await client.execute("SELECT a FROM ks.t WHERE k = ?", [1], { prepare: true }).then(() => null, (e: unknown) => e);
      if (!(e instanceof ResponseError)) throw new Error(`expected ResponseError, got ${e}`);
      const r = e as unknown as Record<string, unknown>;
      const id = node.sent("EXECUTE")[0].id!;
      const message = `Prepared query with ID ${id} not found`;
      assertExact(
        { name: r.name, code: r.code, codeName: r.codeName, serverMessage: r.serverMessage, message: r.message },
        { name: "ResponseError", code: 0x2500, codeName: "Unprepared", serverMessage: message, message: `Unprepared (0x2500) from ${node.address}: ${message}` },
      );
      assertExact(pick(r, CODE_FIELDS), { ...pick({}, CODE_FIELDS), unprepared_id: id });
      // The first EXECUTE, then three rounds of PREPARE and EXECUTE, each with the same id.
      assertExact(node.userRequests().map((q) => q.op), ["PREPARE", "EXECUTE", "PREPARE", "EXECUTE", "PREPARE", "EXECUTE", "PREPARE", "EXECUTE"]);
      assertExact(new Set(node.sent("EXECUTE").map((q) => q.id)).size, 1);
    } finally {
      await client.shutdown();
      await node.stop();
    }
  });
}
