// The driver's table of requests waiting for answers (driver/src/pending.ts): indexed by the
// slot in an id's low 20 bits, checked against the whole id, with other ids in an overflow map;
// a request's state in parallel arrays, handed back through the table's registers.
import { assertExact } from "../exact.mjs";
import { PendingTable, rejectWith } from "../../driver/src/pending.ts";

const slotted = (slot: number, generation: number) => slot | (generation << 20);

/** Adds request `id` with settlers that record into `settled`, and state derived from the id. */
function add(table: PendingTable, id: number, settled: string[]): void {
  table.add(id, (v) => settled.push(`resolve ${id} ${v}`), { ctx: id }, id + 0.5, [id], { opt: id });
}

/** What `take(id)` left in the registers, settling it with `value`. */
function takeAndResolve(table: PendingTable, id: number, value: string): unknown {
  if (!table.take(id)) return undefined;
  const state = { context: table.context, started: table.started, params: table.params, options: table.options };
  table.settle!(value);
  return state;
}

Deno.test("an entry is taken once by its id; a later generation of its slot is another request", () => {
  const table = new PendingTable();
  const settled: string[] = [];
  const id = slotted(3, 1);
  add(table, id, settled);
  assertExact(table.size, 1);
  assertExact(table.take(slotted(3, 2)), false, "same slot, other generation");
  assertExact(table.take(slotted(4, 1)), false, "an empty slot");
  assertExact(table.take(slotted(3 + 1024, 1)), false, "a slot past the arrays");
  assertExact(takeAndResolve(table, id, "a"), { context: { ctx: id }, started: id + 0.5, params: [id], options: { opt: id } });
  assertExact(table.take(id), false, "taken already");
  assertExact(table.size, 0);
  assertExact(settled, [`resolve ${id} a`]);
});

Deno.test("a failed take and clear() leave nothing of the last request in the registers", () => {
  const table = new PendingTable();
  add(table, 9, []);
  assertExact(table.take(9), true);
  table.clear();
  assertExact([table.settle, table.context, table.params, table.options], [undefined, undefined, undefined, undefined]);
  add(table, 10, []);
  assertExact(table.take(10), true);
  assertExact(table.take(10), false);
  assertExact([table.settle, table.context, table.params, table.options], [undefined, undefined, undefined, undefined]);
});

Deno.test("ids whose slot is taken by a live id wait in the overflow and are found by id", () => {
  const table = new PendingTable();
  const settled: string[] = [];
  const [first, second, third] = [slotted(7, 1), slotted(7, 2), slotted(7, 3)];
  for (const id of [first, second, third]) add(table, id, settled);
  assertExact(table.size, 3);
  assertExact(takeAndResolve(table, third, "c"), { context: { ctx: third }, started: third + 0.5, params: [third], options: { opt: third } });
  assertExact(takeAndResolve(table, first, "a"), { context: { ctx: first }, started: first + 0.5, params: [first], options: { opt: first } });
  // The slot is free again while `second` still waits in the overflow: found there.
  assertExact(takeAndResolve(table, second, "b"), { context: { ctx: second }, started: second + 0.5, params: [second], options: { opt: second } });
  assertExact(table.size, 0);
  assertExact(settled, [`resolve ${third} c`, `resolve ${first} a`, `resolve ${second} b`]);
});

Deno.test("the arrays grow past their first size and keep every entry", () => {
  const table = new PendingTable();
  const settled: string[] = [];
  const ids = [0, 63, 64, 200, 5000, 0xfffff];
  for (const id of ids) add(table, id, settled);
  for (const id of ids) assertExact(takeAndResolve(table, id, "x"), { context: { ctx: id }, started: id + 0.5, params: [id], options: { opt: id } });
  assertExact(settled, ids.map((id) => `resolve ${id} x`));
});

Deno.test("takeAllSettlers hands out every waiting request's settler once and empties the table", () => {
  const table = new PendingTable();
  const settled: string[] = [];
  const ids = [slotted(0, 1), slotted(5, 1), slotted(5, 2), 0xffffffff];
  for (const id of ids) add(table, id, settled);
  for (const settle of table.takeAllSettlers()) settle("closed");
  assertExact(settled.sort(), ids.map((id) => `resolve ${id} closed`).sort());
  assertExact(table.size, 0);
  assertExact(table.takeAllSettlers(), []);
  assertExact(table.take(ids[1]), false);
});

Deno.test("rejectWith rejects a promise through its resolve function, with the very error", async () => {
  let settle: ((v: unknown) => void) | undefined;
  const promise = new Promise((resolve) => settle = resolve);
  const error = new RangeError("the answer was refused");
  rejectWith(settle!, error);
  const outcome = await promise.then((v) => ({ resolved: v }), (e) => ({ rejected: e }));
  assertExact(outcome, { rejected: error });
  assertExact((outcome as { rejected: unknown }).rejected === error, true);
});
