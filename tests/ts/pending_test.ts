// The driver's table of requests waiting for answers (driver/src/pending.ts): indexed by the
// slot in an id's low 20 bits, checked against the whole id, with other ids in an overflow map.
import { assertExact } from "../exact.mjs";
import { PendingTable } from "../../driver/src/pending.ts";

const entry = (id: number) => ({ id });
const slotted = (slot: number, generation: number) => slot | (generation << 20);

Deno.test("an entry is taken once by its id; a later generation of its slot is another request", () => {
  const table = new PendingTable<{ id: number }>();
  const a = entry(slotted(3, 1));
  table.add(a);
  assertExact(table.size, 1);
  assertExact(table.take(slotted(3, 2)), undefined, "same slot, other generation");
  assertExact(table.take(slotted(4, 1)), undefined, "an empty slot");
  assertExact(table.take(a.id), a);
  assertExact(table.take(a.id), undefined, "taken already");
  assertExact(table.size, 0);
});

Deno.test("ids whose slot is taken by a live id wait in the overflow and are found by id", () => {
  const table = new PendingTable<{ id: number }>();
  const first = entry(slotted(7, 1));
  const second = entry(slotted(7, 2));
  const third = entry(slotted(7, 3));
  table.add(first);
  table.add(second);
  table.add(third);
  assertExact(table.size, 3);
  assertExact(table.take(third.id), third);
  assertExact(table.take(first.id), first);
  assertExact(table.take(second.id), second);
  assertExact(table.size, 0);
});

Deno.test("takeAll hands out every waiting entry once and empties the table", () => {
  const table = new PendingTable<{ id: number }>();
  const entries = [entry(slotted(0, 1)), entry(slotted(5, 1)), entry(slotted(5, 2)), entry(0xffffffff)];
  for (const e of entries) table.add(e);
  const all = table.takeAll();
  assertExact(all.map((e) => e.id).sort((x, y) => x - y), entries.map((e) => e.id).sort((x, y) => x - y));
  assertExact(table.size, 0);
  assertExact(table.takeAll(), []);
  assertExact(table.take(entries[1].id), undefined);
});
