/**
 * What a request keeps alive while it waits for its answer (issue #17). At 1024 in flight
 * every young object the requests keep is copied by every scavenge, and V8 doubles the young
 * generation once enough bytes survived: the driver keeps the caller's parameters and options
 * only when a next page can need them, that is for a statement the server prepared with result
 * columns. Observed with WeakRefs and a forced collection while the fake node holds the answer.
 * And what a result keeps after it settled: its own rows, page state and blob bytes, unchanged
 * by later answers that reuse the driver's buffers (guards for any lazy or shared result).
 */
import v8 from "node:v8";
import vm from "node:vm";
import { assertExact } from "../exact.mjs";
import { cell, Op, preparedBody, preparedIdFor, rowsBody } from "../fakenode/mod.ts";
import { withNode } from "./helpers.ts";
import { DriverError } from "../../dist/deno.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const INSERT = "INSERT INTO ks.t (k, v) VALUES (?, ?)";
const SELECT = "SELECT k, v FROM ks.t WHERE k = ?";

/** Turns until the node saw `count` EXECUTEs: the requests are then on the wire, in flight. */
async function executesSeen(node: { userRequests(): Array<{ op: string }> }, count: number): Promise<void> {
  while (node.userRequests().filter((r) => r.op === "EXECUTE").length < count) await new Promise((r) => setTimeout(r, 5));
}

/** Whether each target is still alive after a full collection (run after the allocating task). */
async function aliveAfterGc(refs: Array<WeakRef<object>>): Promise<boolean[]> {
  // WeakRef targets made in a task are kept until it ends.
  await new Promise((r) => setTimeout(r, 0));
  gc();
  return refs.map((r) => r.deref() !== undefined);
}

/**
 * Starts an INSERT and a SELECT whose answers the node holds, recording how they settle, and
 * returns WeakRefs to what the caller passed. Not async: a suspended async function's frame
 * would keep the arguments alive itself.
 */
// deno-lint-ignore no-explicit-any
function startHeld(client: any, settled: unknown[]): Array<WeakRef<object>> {
  const writeParams = [2n, new Uint8Array(32)];
  const writeOptions = { prepare: true };
  const selectParams = [2n];
  for (const call of [client.execute(INSERT, writeParams, writeOptions), client.execute(SELECT, selectParams, { prepare: true })]) {
    call.then((rs: unknown) => settled.push(rs), (e: unknown) => settled.push(e));
  }
  return [new WeakRef(writeParams), new WeakRef(writeOptions), new WeakRef(selectParams)];
}

Deno.test("in flight, a write keeps neither its parameters nor its options; a SELECT keeps its parameters for the next page; both settle on shutdown", async () => {
  await withNode({ protocolVersion: 4 }, async (node, client) => {
    node.on({ opcode: Op.PREPARE }, (req) => ({
      body: preparedBody({
        id: preparedIdFor(req.query!),
        bind: req.query === SELECT ? [{ name: "k", type: "bigint" }] : [{ name: "k", type: "bigint" }, { name: "v", type: "blob" }],
        pkIndexes: [0],
        result: req.query === SELECT ? [{ name: "k", type: "bigint" }, { name: "v", type: "blob" }] : [],
      }, 4),
    }));
    await client.connect();
    // Prepared first: the calls below take the hot path, with nothing awaited before the wire.
    await client.execute(INSERT, [1n, new Uint8Array(1)], { prepare: true });
    await client.execute(SELECT, [1n], { prepare: true });
    node.on({ opcode: Op.EXECUTE }, { silence: true });

    const settled: unknown[] = [];
    const refs = startHeld(client, settled);
    await executesSeen(node, 4);
    assertExact(await aliveAfterGc(refs), [false, false, true], "write params, write options, select params");
    assertExact(settled, [], "both still in flight");

    await client.shutdown();
    await new Promise((r) => setTimeout(r, 0));
    const shutdown = new DriverError("the client was shut down", "ERR_SHUTDOWN");
    assertExact(settled, [shutdown, shutdown]);
  });
});

Deno.test("a page state on the result of a statement prepared without result columns cannot fetch a next page; a SELECT's fetches it with its parameters", async () => {
  await withNode({ protocolVersion: 4 }, async (node, client) => {
    node.on({ opcode: Op.PREPARE }, (req) => ({
      body: preparedBody({
        id: preparedIdFor(req.query!),
        bind: [{ name: "k", type: "bigint" }],
        pkIndexes: [0],
        result: req.query === SELECT ? [{ name: "k", type: "bigint" }, { name: "v", type: "blob" }] : [],
      }, 4),
    }));
    const columns = [{ name: "k", type: "bigint" as const }, { name: "v", type: "blob" as const }];
    // A first page with a page state, then a last page: for either statement, as no server would for a write.
    node.on({ opcode: Op.EXECUTE }, (req) =>
      req.params!.pagingState
        ? { body: rowsBody({ columns, rows: [[cell.bigint(8n), new Uint8Array([8])]] }) }
        : { body: rowsBody({ columns, rows: [[cell.bigint(7n), new Uint8Array([7])]], pagingState: new Uint8Array([1, 2]) }) });
    await client.connect();
    const write = await client.execute("INSERT INTO ks.t (k) VALUES (?)", [7n], { prepare: true });
    assertExact(write.pageState, "0102");
    const refused = await write.fetchNextPage().then(() => null, (e: unknown) => e);
    assertExact(refused, new DriverError("this result set does not know the statement it came from", "ERR_NO_PAGE_SOURCE"));

    const first = await client.execute(SELECT, [7n], { prepare: true });
    const next = await first.fetchNextPage();
    assertExact(next.rows, [{ k: 8n, v: new Uint8Array([8]) }]);
    const executes = node.userRequests().filter((r) => r.op === "EXECUTE");
    assertExact(executes.map((r) => [r.params!.values, r.params!.pagingState ?? null]), [
      [[cell.bigint(7n)], null],
      [[cell.bigint(7n)], null],
      [[cell.bigint(7n)], new Uint8Array([1, 2])],
    ]);
  });
});

/**
 * A SELECT with one bigint key whose first page has a page state and whose next page echoes
 * the key it was asked with; keys from 100 up get one page, without metadata (read in place).
 */
function pagedEcho(node: { on: (...a: never[]) => void }, extraBind: Array<{ name: string; type: "blob" }> = []): void {
  // deno-lint-ignore no-explicit-any
  const n = node as any;
  n.on({ opcode: Op.PREPARE }, (req: { query: string }) => ({
    body: preparedBody({
      id: preparedIdFor(req.query),
      bind: [{ name: "k", type: "bigint" }, ...extraBind],
      pkIndexes: [0],
      result: [{ name: "k", type: "bigint" }, { name: "v", type: "blob" }],
    }, 4),
  }));
  const columns = [{ name: "k", type: "bigint" as const }, { name: "v", type: "blob" as const }];
  n.on({ opcode: Op.EXECUTE }, (req: { params: { values: Uint8Array[]; pagingState?: Uint8Array } }) => {
    const key = req.params.values[0];
    if (req.params.pagingState) return { body: rowsBody({ columns, rows: [[key, Uint8Array.of(2)]] }) };
    const k = new DataView(key.buffer, key.byteOffset).getBigInt64(0);
    if (k >= 100n) return { body: rowsBody({ columns, noMetadata: true, rows: [[key, Uint8Array.of(Number(k % 251n))]] }) };
    return { body: rowsBody({ columns, rows: [[key, Uint8Array.of(1)]], pagingState: Uint8Array.of(0xca, 0xfe) }) };
  });
}

Deno.test("3000 SELECTs at once each fetch their next page with their own key", async () => {
  await withNode({ protocolVersion: 4 }, async (node, client) => {
    pagedEcho(node);
    await client.connect();
    await client.execute(SELECT, [0n], { prepare: true });
    const params = Array.from({ length: 3000 }, (_, i) => [BigInt(i) - 3000n]);
    const calls = params.map((p) => client.execute(SELECT, p, { prepare: true }));
    const firsts = await Promise.all(calls);
    const nexts = await Promise.all(firsts.map((rs: { fetchNextPage(): Promise<unknown> }) => rs.fetchNextPage()));
    // deno-lint-ignore no-explicit-any
    const keys = nexts.map((rs: any) => rs.rows[0].k);
    assertExact(keys, params.map((_, i) => BigInt(i) - 3000n));
  });
});

Deno.test("a SELECT's named parameters, and values of 1000 and 1024 bytes, fetch the next page with the same values", async () => {
  await withNode({ protocolVersion: 4 }, async (node, client) => {
    pagedEcho(node, [{ name: "b", type: "blob" }]);
    const query = "SELECT k, v FROM ks.t WHERE k = ? AND b = ?";
    await client.connect();
    const small = new Uint8Array(1000).fill(3);
    const large = new Uint8Array(1024).fill(4);
    for (const [values, label] of [[{ k: 5n, b: small }, "named"], [[6n, large], "positional, 1024 bytes"]] as const) {
      const first = await client.execute(query, values, { prepare: true });
      const next = await first.fetchNextPage();
      assertExact(next.rows, [{ k: Array.isArray(values) ? 6n : 5n, v: Uint8Array.of(2) }], label);
    }
    const executes = node.userRequests().filter((r) => r.op === "EXECUTE").slice(-4);
    assertExact(executes.map((r) => [r.params!.values, r.params!.pagingState ?? null]), [
      [[cell.bigint(5n), small], null],
      [[cell.bigint(5n), small], Uint8Array.of(0xca, 0xfe)],
      [[cell.bigint(6n), large], null],
      [[cell.bigint(6n), large], Uint8Array.of(0xca, 0xfe)],
    ]);
  });
});

Deno.test("a result's page state and blob views (of the page, read in place or not) stay as they came after thousands of later responses", async () => {
  await withNode({ protocolVersion: 4 }, async (node, client) => {
    pagedEcho(node);
    await client.connect();
    const kept = await client.execute(SELECT, [7n], { prepare: true });
    // deno-lint-ignore no-explicit-any
    const later = await Promise.all(Array.from({ length: 3000 }, (_, i) => client.execute(SELECT, [BigInt(i + 100)], { prepare: true }))) as any[];
    // One at a time, each answer is a drain of its own, small enough for the shared event buffer.
    // deno-lint-ignore no-explicit-any
    const single: any[] = [];
    for (let i = 0; i < 200; i++) single.push(await client.execute(SELECT, [BigInt(i + 200)], { prepare: true }));
    assertExact([0, 1, 100, 199].map((i) => single[i].rows), [0, 1, 100, 199].map((i) => [{ k: BigInt(i + 200), v: Uint8Array.of((i + 200) % 251) }]));
    assertExact([kept.pageState, kept.rawPageState, kept.rows], ["cafe", Uint8Array.of(0xca, 0xfe), [{ k: 7n, v: Uint8Array.of(1) }]]);
    assertExact([0, 1, 1500, 2999].map((i) => later[i].rows), [0, 1, 1500, 2999].map((i) => [{ k: BigInt(i + 100), v: Uint8Array.of((i + 100) % 251) }]));
    // Two results never share their rows or page state.
    assertExact([later[0].rows === later[1].rows, later[0].rows[0] === later[1].rows[0]], [false, false]);
  });
});

Deno.test("two write results never share their rows: each has an empty array of its own", async () => {
  await withNode({ protocolVersion: 4 }, async (node, client) => {
    node.on({ opcode: Op.PREPARE }, (req) => ({
      body: preparedBody({ id: preparedIdFor(req.query!), bind: [{ name: "k", type: "bigint" }, { name: "v", type: "blob" }], pkIndexes: [0], result: [] }, 4),
    }));
    await client.connect();
    const [a, b] = await Promise.all([1n, 2n].map((k) => client.execute(INSERT, [k, new Uint8Array(1)], { prepare: true })));
    a.rows.push({ k: 1n });
    assertExact([a.rows === b.rows, b.rows, b.rowLength, b.first()], [false, [], 0, null]);
  });
});
