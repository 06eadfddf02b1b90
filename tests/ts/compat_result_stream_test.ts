/**
 * compat `types.ResultStream` on node:stream (Node, Bun, Deno): DataStax's Readable subclass.
 * `feedPages` adds a page's rows and asks for the next page only once the consumer has read
 * the buffer (DataStax's valve), so a slow reader holds one page, not the whole result; a
 * failure is `error`, then `end`.
 */
import { Readable } from "node:stream";
import { assertExact } from "../exact.mjs";
import { feedPages, nodeStreams, resultStreamClass } from "../../driver/compat/stream.ts";
import type { Row } from "../../driver/compat/values.ts";

const { ResultStream, readable } = nodeStreams(Readable as never);

/** Pages of 10 rows; `pulled` counts the pages asked for. */
function pages(count: number, failAt = -1) {
  const state = { pulled: 0 };
  async function* gen(): AsyncGenerator<Row[]> {
    for (let p = 0; p < count; p++) {
      state.pulled++;
      await new Promise((r) => setTimeout(r, 1)); // the network
      if (p === failAt) throw new Error("boom");
      yield Array.from({ length: 10 }, (_, i) => ({ c: p * 10 + i }) as unknown as Row);
    }
  }
  return { state, source: gen() };
}

/** What a ResultStream is to its user: a Readable with DataStax's members. */
type Stream = Readable & { buffer: unknown[]; paused: boolean; add(chunk: unknown): number };

const tick = () => new Promise((r) => setTimeout(r, 20));

Deno.test("ResultStream: the next page is fetched only once the buffer is read", async () => {
  const { state, source } = pages(5);
  const s = readable(source) as unknown as Stream;
  assertExact(s instanceof ResultStream && s instanceof Readable, true);
  const seen: number[] = [];
  let reading = false;
  const drain = () => {
    let row;
    while ((row = s.read()) !== null) seen.push((row as unknown as { c: number }).c);
  };
  s.on("readable", () => reading && drain()); // paused mode: nothing is read yet
  await tick();
  await tick();
  // Node's Readable takes 16 rows (its object-mode highWaterMark): the first page and 6 of the
  // second; the other 4 wait in `buffer`, and no third page is asked for (as DataStax's).
  assertExact([state.pulled, s.buffer.length], [2, 4]);
  reading = true;
  const ended = new Promise<void>((resolve) => s.on("end", () => resolve()));
  drain();
  await ended;
  assertExact([seen, state.pulled], [Array.from({ length: 50 }, (_, i) => i), 5]);
});

Deno.test("ResultStream: a failed page is error, then end", async () => {
  const { source } = pages(3, 1);
  const s = readable(source) as unknown as Stream;
  const events: unknown[] = [];
  await new Promise<void>((resolve) => {
    s.on("data", (row) => events.push((row as { c: number }).c));
    s.on("error", (e) => events.push(`error ${(e as Error).message}`));
    s.on("end", () => resolve());
  });
  assertExact(events, [...Array.from({ length: 10 }, (_, i) => i), "error boom"]);
});

Deno.test("ResultStream: constructed by a user, add() and null end it", async () => {
  const Class = resultStreamClass(Readable as never);
  const s = new Class({ objectMode: true }) as unknown as Stream;
  assertExact([s.paused, s.buffer], [true, []]);
  s.add("a");
  s.add("b");
  s.add(null);
  const got: unknown[] = [];
  for await (const x of s) got.push(x);
  assertExact(got, ["a", "b"]);
});

Deno.test("feedPages: an empty result ends at once", async () => {
  const s = new ResultStream({ objectMode: true });
  feedPages(s, pages(0).source);
  const r = s as unknown as Stream;
  const got: unknown[] = [];
  for await (const x of r) got.push(x);
  assertExact(got, []);
});
