/** Hostile RESULT bodies for the user's requests: PREPARE, QUERY/EXECUTE rows and pages. */
import { ok } from "node:assert/strict";
import { cell, Op, rowsBody, startCluster, stopAll } from "../../fakenode/mod.ts";
import type { Bundle, HostileCase } from "../harness.ts";
import {
  CELL_OVERRUN,
  HUGE_COLUMN_COUNT,
  PAGING_STATE_OVERRUN,
  preparedHugeBindCount,
  preparedHugePkCount,
  rowsWithNestedListType,
  UNKNOWN_RESULT_KIND,
  ZERO_COLUMN_HUGE_ROWS,
} from "./bodies.ts";
import { assertRemoteProtocolError, clientOn, failureOn, queryServedBy, rejection } from "./common.ts";
import { assertExact } from "../../exact.mjs";

// deno-lint-ignore no-explicit-any
type Any = any;

/**
 * `bad` answers the user's requests that fit `match` with `body`; the request that reaches
 * it fails with a protocol error naming `field`, and the session goes on on both nodes.
 */
function resultCase(
  name: string,
  match: { opcode?: number; query?: RegExp },
  body: (version: number) => Uint8Array,
  field: string | RegExp,
  send: (client: Any) => Promise<unknown>,
  version: 4 | 5 = 5,
): HostileCase {
  return {
    name: `v${version} ${name}`,
    async run(bundle: Bundle) {
      const [bad, good] = await startCluster(2);
      bad.on(match, (req) => ({ body: body(req.version) }));
      const { client } = clientOn(bundle, [good], { protocolVersion: version });
      try {
        await client.connect();
        const e = await failureOn(client, bad, () => send(client));
        assertRemoteProtocolError(bundle, e, field);
        await queryServedBy(client, good);
        await queryServedBy(client, bad);
      } finally {
        await client.shutdown();
        await stopAll([bad, good]);
      }
    },
  };
}

const USER_TABLE = /FROM ks\.t\b/;
const select = (client: Any) => client.execute("SELECT a FROM ks.t");
const prepare = (client: Any) => client.prepare(`SELECT a FROM ks.t WHERE k = ? AND n = ${Math.random()}`);
const streamCsv = async (client: Any) => {
  let bytes = 0;
  for await (const page of client.streamCsv("SELECT a FROM ks.t")) bytes += page.csv.length;
  return bytes;
};

const NO_METADATA_UNASKED = rowsBody({ columns: [{ name: "a", type: "int" }], rows: [[cell.int(1)]], noMetadata: true });

/** A first page with one row and a paging state, and whatever the second page is. */
function pagesThen(second: Uint8Array) {
  let pages = 0;
  return (req: { params?: { pagingState?: Uint8Array | null } }) =>
    req.params?.pagingState ? second : (pages++, rowsBody({ columns: [{ name: "a", type: "int" }], rows: [[cell.int(1)]], pagingState: Uint8Array.of(pages) }));
}

/**
 * Every page of ks.t is empty and carries the paging state [1, 2, 3], also when asked with
 * it: each way of reading pages fails on the second page, naming the paging state, instead of
 * asking for ever without a row to hand back. Counts the pages the node served.
 */
function stalledPagingCase(how: string, read: (client: Any) => Promise<unknown>, prepare: boolean): HostileCase {
  return {
    name: `v5 ${how}${prepare ? " (prepared)" : ""}: every page empty, handing back the paging state it was asked with`,
    async run(bundle) {
      const [node] = await startCluster(1);
      const stalled = rowsBody({ columns: [{ name: "a", type: "int" }], rows: [], pagingState: Uint8Array.of(1, 2, 3) });
      node.on({ query: USER_TABLE, where: (r) => r.opcode !== Op.PREPARE }, { body: stalled });
      const { client } = clientOn(bundle, [node], { queryOptions: { prepare } });
      try {
        // Bounded: without the check the loop asks for ever (thousands of pages a second).
        let timer: ReturnType<typeof setTimeout> | undefined;
        const giveUp = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`still paging after 5 s: ${node.userRequests().length} pages asked`)), 5000);
        });
        const e = await Promise.race([rejection(read(client)), giveUp]).finally(() => clearTimeout(timer));
        assertRemoteProtocolError(bundle, e, "paging state");
        // No byte of a page is at fault, only the two pages together.
        assertExact(e.offset, null);
        assertExact(e.message, `remote protocol error in paging state: a page without rows returned the paging state it was asked with: the server makes no progress (host ${node.address})`);
        assertExact(node.userRequests().filter((r) => r.opcode !== Op.PREPARE).length, 2);
        await queryServedBy(client, node);
      } finally {
        await client.shutdown();
        await stopAll([node]);
      }
    },
  };
}

const STALLED_PAGING_CASES: HostileCase[] = [
  stalledPagingCase("stream()", async (client) => {
    for await (const _ of client.stream("SELECT a FROM ks.t", [], { pageSize: 10 })) { /* no row comes */ }
  }, false),
  stalledPagingCase("eachRow()", (client) => client.eachRow("SELECT a FROM ks.t", [], { pageSize: 10 }, () => {}), true),
  stalledPagingCase("streamCsv()", (client) => streamCsv(client), false),
];

export const RESULT_CASES: HostileCase[] = [5, 4].flatMap((v) => {
  const version = v as 4 | 5;
  return [
    resultCase("PREPARE: bind metadata declares 2^31-1 columns", { opcode: Op.PREPARE }, preparedHugeBindCount, "column name", prepare, version),
    resultCase("PREPARE: 2^31-1 partition-key indexes", { opcode: Op.PREPARE }, preparedHugePkCount, "partition key index", prepare, version),
    resultCase("QUERY rows: a cell declares 2 GiB", { query: USER_TABLE }, () => CELL_OVERRUN, /^column c$/, select, version),
    resultCase("QUERY rows: 2^31-1 columns declared", { query: USER_TABLE }, () => HUGE_COLUMN_COUNT, "column name", select, version),
    resultCase("QUERY rows: a list type nested 100000 deep", { query: USER_TABLE }, () => rowsWithNestedListType(100000), "column type", select, version),
    resultCase("QUERY rows: a paging state declares 2 GiB", { query: USER_TABLE }, () => PAGING_STATE_OVERRUN, "paging state", select, version),
    resultCase("QUERY: a result kind no version defines", { query: USER_TABLE }, () => UNKNOWN_RESULT_KIND, "result kind", select, version),
    resultCase("QUERY rows: zero columns and 2^31-1 rows", { query: USER_TABLE }, () => ZERO_COLUMN_HUGE_ROWS, /^rows?[ _]count$/, select, version),
    // Found by the whole-client fuzzer (tests/hostile/fuzz, seed 3399): blamed on the client ("local").
    resultCase("QUERY rows: No_metadata for a query that did not ask to skip it", { query: USER_TABLE }, () => NO_METADATA_UNASKED, "rows metadata", select, version),
    resultCase("streamCsv: zero columns and 2^31-1 rows", { query: USER_TABLE }, () => ZERO_COLUMN_HUGE_ROWS, /^rows?[ _]count$/, streamCsv, version),
  ];
}).concat([
  {
    name: "v5 the second page of a stream is hostile",
    async run(bundle) {
      const [bad] = await startCluster(1);
      const page = pagesThen(CELL_OVERRUN);
      bad.on({ query: USER_TABLE }, (req) => ({ body: page(req) }));
      const { client } = clientOn(bundle, [bad]);
      try {
        const rows: unknown[] = [];
        const e = await (async () => {
          try {
            for await (const row of client.stream("SELECT a FROM ks.t", [], { pageSize: 1 })) rows.push(row);
          } catch (e) {
            return e;
          }
          throw new Error("the stream ended without an error");
        })();
        ok(rows.length === 1, `one row before the hostile page, got ${rows.length}`);
        assertRemoteProtocolError(bundle, e, "column c");
        await queryServedBy(client, bad);
      } finally {
        await client.shutdown();
        await stopAll([bad]);
      }
    },
  },
], STALLED_PAGING_CASES);
