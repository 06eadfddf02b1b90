/**
 * What a request keeps alive while it waits for its answer (issue #17). At 1024 in flight
 * every young object the requests keep is copied by every scavenge, and V8 doubles the young
 * generation once enough bytes survived: the driver keeps the caller's parameters and options
 * only when a next page can need them, that is for a statement the server prepared with result
 * columns. Observed with WeakRefs and a forced collection while the fake node holds the answer.
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
