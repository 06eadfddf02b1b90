// Flow control: the adaptive concurrency limit, the rate limiter, the latency histogram,
// token-range scans, and bench's phase runner and charts.

import { AdaptiveConcurrency, LatencyHistogram, RateLimiter, sortedQuantile } from "../../cli/load/flow.ts";
import { evenSlices, halves, MAX_TOKEN, MIN_TOKEN, rangeCondition, scanRangesOf } from "../../cli/ranges.ts";
import { latencyChart, type PhaseResult, runPhase, throughputChart } from "../../cli/bench.ts";
import { linearTicks, logTicks } from "../../cli/svg.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "./assert.ts";

async function completeRounds(window: AdaptiveConcurrency, rounds: number, latencyMs: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const size = window.limit;
    for (let i = 0; i < size; i++) await window.acquire();
    for (let i = 0; i < size; i++) window.release(latencyMs);
  }
}

Deno.test("concurrency grows while latency stays near the best, and halves on overload", async () => {
  const window = new AdaptiveConcurrency(256, 32);
  assertEquals(window.limit, 32);
  await completeRounds(window, 5, 1);
  const grown = window.limit;
  assert(grown > 32 && grown <= 256, `limit ${grown}`);
  await completeRounds(window, 40, 1);
  assertEquals(window.limit, 256, "never beyond the maximum");
  window.backOff();
  assertEquals(window.limit, 128);
  window.backOff();
  assertEquals(window.limit, 128, "one decrease per round");
  await completeRounds(window, 1, 1);
  const beforeOverload = window.limit;
  window.backOff();
  assertEquals(window.limit, Math.floor(beforeOverload / 2));
  // Latency far above the best seen: no more growth, a gentle decrease.
  const beforeSlow = window.limit;
  await completeRounds(window, 3, 50);
  assert(window.limit < beforeSlow, `limit ${window.limit} after slow rounds`);
});

Deno.test("a fixed window never exceeds its limit", async () => {
  const window = new AdaptiveConcurrency(3, 3, false);
  let active = 0;
  let peak = 0;
  const tasks: Array<Promise<void>> = [];
  for (let i = 0; i < 30; i++) {
    await window.acquire();
    active++;
    peak = Math.max(peak, active);
    tasks.push(new Promise<void>((resolve) => setTimeout(resolve, i % 3)).then(() => {
      active--;
      window.release(1000);
    }));
  }
  await window.drain();
  await Promise.all(tasks);
  assertEquals([peak, window.peak, window.limit, window.inFlight], [3, 3, 3, 0]);
});

Deno.test("the rate limiter paces rows evenly (on a simulated clock)", async () => {
  let now = 0;
  const sleeps: number[] = [];
  const clock = { now: () => now, sleep: (ms: number) => (sleeps.push(ms), now += ms, Promise.resolve()) };
  const limiter = new RateLimiter(200, clock);
  for (let i = 0; i < 20; i++) await limiter.take(1);
  await limiter.take(10);
  // 30 rows at 200/s: the first goes at once, each next one 5 ms later, so the last batch
  // starts after 20 rows = 100 ms; it is paid for by whoever comes next.
  assertEquals([sleeps, now], [Array(20).fill(5), 100]);
  now += 10;
  await limiter.take(1);
  assertEquals([sleeps.length, sleeps[20], now], [21, 40, 150], "the 10-row batch costs the next caller 50 ms");
});

Deno.test("latency quantiles are within the histogram's 5% buckets", () => {
  const histogram = new LatencyHistogram();
  for (let i = 1; i <= 1000; i++) histogram.record(i / 10);
  const p50 = histogram.quantile(0.5);
  const p99 = histogram.quantile(0.99);
  assert(p50 >= 50 && p50 <= 52.5, `p50 ${p50}`);
  assert(p99 >= 99 && p99 <= 100, `p99 ${p99}`);
  assertEquals(histogram.count, 1000);
  assertEquals(new LatencyHistogram().quantile(0.5), 0);
  assertEquals(sortedQuantile(Float64Array.from([1, 2, 3, 4]), 0.5), 2);
});

Deno.test("scans cover the ring once: the wrapping range becomes two", () => {
  const scans = scanRangesOf([
    { start: 500n, end: -500n, replicas: ["a"] },
    { start: -500n, end: 500n, replicas: ["b"] },
  ]);
  assertEquals(scans.map((s) => [s.start, s.end, s.startInclusive, s.routingToken]), [
    [500n, MAX_TOKEN, false, -500n],
    [MIN_TOKEN, -500n, true, -500n],
    [-500n, 500n, false, 500n],
  ]);
  assertEquals(rangeCondition("token(k)", scans[1]), "token(k) >= ? AND token(k) <= ?");
  assertEquals(rangeCondition("token(k)", scans[2]), "token(k) > ? AND token(k) <= ?");
  const single = scanRangesOf([{ start: 7n, end: 7n, replicas: ["a"] }]);
  assertEquals(single.map((s) => [s.start, s.end]), [[7n, MAX_TOKEN], [MIN_TOKEN, 7n]]);
  const slices = evenSlices(4);
  assertEquals([slices[0].start, slices[3].end, slices[0].startInclusive], [MIN_TOKEN, MAX_TOKEN, true]);
  for (let i = 1; i < 4; i++) assertEquals(slices[i].start, slices[i - 1].end);
  const [low, high] = halves(scans[2])!;
  assertEquals([low.start, low.end, high.start, high.end, high.startInclusive], [-500n, 0n, 0n, 500n, false]);
});

Deno.test("bench phases time every operation and count failures", async () => {
  let inFlight = 0;
  let peak = 0;
  const result = await runPhase("insert", 200, 8, async (i) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight--;
    if (i === 7) throw new Error("boom");
  });
  assertEquals([result.operations, result.errors, result.concurrency, peak], [200, 1, 8, 8]);
  assertEquals(result.firstError, "boom");
  assert(result.latencyMs.p50 >= 0.5 && result.latencyMs.p50 <= result.latencyMs.p99, JSON.stringify(result));
  assert(result.throughput > 0);
});

Deno.test("charts: log-scale axes, one polyline per series, a legend", () => {
  const results: PhaseResult[] = [1, 64, 1024].flatMap((concurrency, i) =>
    (["insert", "select"] as const).map((phase) => ({
      phase,
      concurrency,
      operations: 1000,
      errors: 0,
      seconds: 1,
      throughput: 1000 * (i + 1) * (phase === "insert" ? 1 : 2),
      latencyMs: { p50: 0.3 * (i + 1), p90: 0.5 * (i + 1), p99: 2 * (i + 1), mean: 0.4, max: 9 },
    }))
  );
  const throughput = throughputChart(results);
  assertMatch(throughput, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assertEquals(throughput.match(/<polyline /g)?.length, 2);
  assertStringIncludes(throughput, ">inserts</text>");
  assertStringIncludes(throughput, "concurrent requests (log scale)");
  for (const tick of [">1</text>", ">10</text>", ">100</text>", ">1k</text>"]) assertStringIncludes(throughput, tick);
  const latency = latencyChart(results);
  assertEquals(latency.match(/<polyline /g)?.length, 4);
  assertStringIncludes(latency, ">select p99</text>");
  assertStringIncludes(latency, "latency (ms) (log scale)");
  assertEquals(logTicks(1, 1024), [1, 10, 100, 1000, 10000]);
  assertEquals(linearTicks(0, 9), [0, 2, 4, 6, 8, 10]);
});
