/**
 * compat `stream()` in Workers (rowEmitter, no node:stream there): read as DataStax's examples
 * read a ResultStream, `on('readable', function () { while ((row = this.read()) !== null) ... })`
 * and then `end`; a failure is `error` then `end`.
 */
import { assertExact } from "../exact.mjs";
import { rowEmitter } from "../../driver/compat/stream.ts";
import type { Row } from "../../driver/compat/values.ts";

async function* rows(n: number, failAfter = -1): AsyncGenerator<Row> {
  for (let i = 0; i < n; i++) {
    if (i === failAfter) throw new Error("boom");
    if (i % 10 === 0) await Promise.resolve(); // a page boundary
    yield { c: i } as unknown as Row;
  }
}

/** Reads `s` paused, through `this`, until `end`: the rows and the events seen. */
function readPaused(s: ReturnType<typeof rowEmitter>): Promise<unknown[]> {
  const seen: unknown[] = [];
  return new Promise((resolve) => {
    s.on("readable", function (this: unknown) {
      const stream = this as { read(): Row | null };
      let row;
      while ((row = stream.read()) !== null) seen.push((row as unknown as { c: number }).c);
    });
    s.on("error", (e) => seen.push(`error ${(e as Error).message}`));
    s.on("end", () => resolve([...seen, "end"]));
  });
}

Deno.test("rowEmitter: readable events and this.read() give every row, then end", async () => {
  assertExact(await readPaused(rowEmitter(rows(25))), [...Array.from({ length: 25 }, (_, i) => i), "end"]);
  assertExact(await readPaused(rowEmitter(rows(0))), ["end"]);
});

Deno.test("rowEmitter: a failure while paused is error, then end", async () => {
  const seen = await readPaused(rowEmitter(rows(25, 12)));
  assertExact(seen.slice(-2), ["error boom", "end"]);
});

Deno.test("rowEmitter: data listeners are called on the stream", async () => {
  const s = rowEmitter(rows(3));
  const seen: unknown[] = [];
  await new Promise<void>((resolve) => {
    s.on("data", function (this: unknown, row) {
      seen.push([this === s, (row as { c: number }).c]);
    });
    s.on("end", () => resolve());
  });
  assertExact(seen, [[true, 0], [true, 1], [true, 2]]);
});

Deno.test("rowEmitter: paused, it reads 16 rows ahead of read(), not the whole result", async () => {
  let pulled = 0;
  async function* counted(): AsyncGenerator<Row> {
    for (let i = 0; i < 100; i++) {
      pulled++;
      yield { c: i } as unknown as Row;
    }
  }
  const s = rowEmitter(counted());
  await new Promise<void>((resolve) => s.on("readable", () => resolve()));
  await new Promise((r) => setTimeout(r, 10));
  assertExact(pulled, 16);
});
