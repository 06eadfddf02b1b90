// Token-range scans, and bench's phase runner and charts.

import { evenSlices, halves, MAX_TOKEN, MIN_TOKEN, rangeCondition, scanRangesOf } from "../../cli/ranges.ts";
import { latencyChart, type PhaseResult, runPhase, throughputChart } from "../../cli/bench.ts";
import { linearTicks, logTicks } from "../../cli/svg.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "./assert.ts";

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
