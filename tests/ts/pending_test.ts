// The driver's table of requests waiting for answers (driver/src/pending.ts): indexed by the
// slot in an id's low 20 bits, checked against the whole id, with other ids in an overflow map;
// a request's state in parallel arrays, read where `take` says it is until `release`.
import { assertExact } from "../exact.mjs";
import { PendingTable, rejectWith } from "../../driver/src/pending.ts";

const slotted = (slot: number, generation: number) => slot | (generation << 20);

/** Adds request `id` with settlers that record into `settled`, and state derived from the id. */
function add(table: PendingTable, id: number, settled: string[]): void {
  table.add(id, (v) => settled.push(`resolve ${id} ${v}`), { ctx: id }, id + 0.5, [id], { opt: id });
}

/** The state `take(id)` gave access to, settling the request with `value` and releasing it. */
function takeAndResolve(table: PendingTable, id: number, value: string): unknown {
  const at = table.take(id);
  if (at < 0) return undefined;
  const state = { context: table.contextAt(at), started: table.startedAt(at), params: table.paramsAt(at), options: table.optionsAt(at) };
  table.settleAt(at)(value);
  table.release(at);
  return state;
}

Deno.test("an entry is taken once by its id; a later generation of its slot is another request", () => {
  const table = new PendingTable();
  const settled: string[] = [];
  const id = slotted(3, 1);
  add(table, id, settled);
  assertExact(table.size, 1);
  assertExact(table.take(slotted(3, 2)), -1, "same slot, other generation");
  assertExact(table.take(slotted(4, 1)), -1, "an empty slot");
  assertExact(table.take(slotted(3 + 1024, 1)), -1, "a slot past the arrays");
  assertExact(takeAndResolve(table, id, "a"), { context: { ctx: id }, started: id + 0.5, params: [id], options: { opt: id } });
  assertExact(table.take(id), -1, "taken already");
  assertExact(table.size, 0);
  assertExact(settled, [`resolve ${id} a`]);
});

Deno.test("release forgets a taken request's state: the table keeps nothing of it alive", () => {
  const table = new PendingTable();
  add(table, 9, []);
  const at = table.take(9);
  assertExact(at, 9);
  table.release(at);
  assertExact([table.contextAt(at), table.paramsAt(at), table.optionsAt(at)], [undefined, undefined, undefined]);
  assertExact(table.take(9), -1);
  // The overflow's entry is read from the spare place past the slots, released the same way.
  add(table, slotted(9, 1), []);
  add(table, slotted(9, 2), []);
  const spare = table.take(slotted(9, 2));
  assertExact(spare, 64, "the spare place of a 64-slot table");
  assertExact(table.paramsAt(spare), [slotted(9, 2)]);
  table.release(spare);
  assertExact([table.contextAt(spare), table.paramsAt(spare), table.optionsAt(spare)], [undefined, undefined, undefined]);
  assertExact(table.size, 1);
  assertExact(table.take(slotted(9, 1)), 9);
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
  assertExact(table.take(ids[1]), -1);
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
