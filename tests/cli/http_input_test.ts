// openUrl's deadlines hold even when the runtime's abort does not end a wait: Deno 2.9's
// fetch sometimes leaves a pending body read pending after its signal is aborted (a load of
// a stalled URL hung). Here fetch is replaced by one whose waits ignore the signal entirely,
// so only openUrl's own timers can end them. Each wait is raced against a guard far longer
// than the deadline, so a broken deadline fails the test instead of hanging it.

import { assert, assertEquals } from "./assert.ts";
import { openUrl } from "../../cli/load/http_input.ts";
import { CliFailure } from "../../cli/errors.ts";
import { decompressor } from "../../cli/compression.ts";

const URL_ = "http://stall.test/data.csv";
const GUARD_MS = 5_000;

/** Runs `work` with `fetch` answering as `answer` does, whatever the signal says. */
async function withFetch<T>(answer: () => Promise<Response>, work: () => Promise<T>): Promise<T> {
  const real = globalThis.fetch;
  globalThis.fetch = (() => answer()) as typeof fetch;
  try {
    return await work();
  } finally {
    globalThis.fetch = real;
  }
}

/** A body that sends `first` (if any), then never another byte nor its end, abort or not. */
function stallingBody(first: Uint8Array | null): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (!sent && first !== null) {
        sent = true;
        controller.enqueue(first);
        return;
      }
      return new Promise(() => {});
    },
  });
}

/** The error `work` rejects with within GUARD_MS, and how long it took. */
async function failureOf(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  let guard: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<"hung">((resolve) => guard = setTimeout(() => resolve("hung"), GUARD_MS));
  try {
    const outcome = await Promise.race([work().then(() => "resolved" as const, (error) => ({ error })), hung]);
    if (outcome === "hung" || outcome === "resolved") throw new Error(`expected a rejection, got: ${outcome}`);
    return { error: outcome.error, ms: performance.now() - started };
  } finally {
    clearTimeout(guard);
  }
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<number> {
  let total = 0;
  for await (const chunk of body) total += chunk.length;
  return total;
}

function assertFailure(error: unknown, message: string): void {
  assert(error instanceof CliFailure, `not a CliFailure: ${error}`);
  assertEquals([error.message, error.exitCode], [message, 1]);
}

Deno.test("openUrl: headers that never come are an error after the deadline, the signal ignored", async () => {
  const { error, ms } = await withFetch(() => new Promise(() => {}), () => failureOf(() => openUrl(URL_, 50)));
  assertFailure(error, `${URL_}: no response within 50 ms (--http-timeout)`);
  assert(ms >= 45, `too soon: ${ms} ms`);
});

for (
  const [what, first, message] of [
    ["before the first byte", null, `${URL_}: no data for 50 ms before the first byte of the body (--http-timeout)`],
    ["in the middle", new TextEncoder().encode("k\n1\n"), `${URL_}: no data for 50 ms in the middle of the body (--http-timeout)`],
  ] as const
) {
  Deno.test(`openUrl: a body that stalls ${what} is an error after the deadline, the signal ignored`, async () => {
    const { error } = await withFetch(
      () => Promise.resolve(new Response(stallingBody(first))),
      () => failureOf(async () => readAll((await openUrl(URL_, 50)).body)),
    );
    assertFailure(error, message);
  });
}

Deno.test("openUrl: a stall under a decompressor that reads ahead is still an error", async () => {
  const gz = new Uint8Array(await new Response(new Blob(["k\n1\n2\n"]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
  const { error } = await withFetch(
    () => Promise.resolve(new Response(stallingBody(gz.subarray(0, 8)))),
    () => failureOf(async () => readAll((await openUrl(URL_, 50)).body.pipeThrough(await decompressor("gzip")))),
  );
  assertFailure(error, `${URL_}: no data for 50 ms in the middle of the body (--http-timeout)`);
});

Deno.test("openUrl: a body that keeps coming, each piece within the deadline, is read whole", async () => {
  let pieces = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (++pieces > 5) controller.close();
      else controller.enqueue(new Uint8Array(3));
    },
  });
  // 5 pieces 20 ms apart: longer than one deadline of 60 ms in all, each well within it.
  const total = await withFetch(() => Promise.resolve(new Response(body)), async () => readAll((await openUrl(URL_, 60)).body));
  assertEquals(total, 15);
});
