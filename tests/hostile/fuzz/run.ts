/**
 * Runs a range of fuzz seeds with the checks around them: nothing escapes to the runtime,
 * the WASM instance still serves a fresh client on a healthy node after every iteration,
 * and memory (WASM linear memory, JS heap) after the run is near where it was early on.
 */
import { FakeNode } from "../../fakenode/mod.ts";
import type { Bundle, MemorySample } from "../harness.ts";
import { EscapeTrap, settleWithin } from "./invariants.ts";
import { type FuzzOp, runIteration } from "./iteration.ts";

/**
 * Growth allowed over a run, from the sample after the warm-up iterations: a fixed slack for
 * GC noise plus a budget per iteration, so a long run finds a per-client leak of a few KB
 * (a fixed 64 MiB let a 6 KB-per-iteration one through 3,000 seeds) and a short one still
 * finds a client that keeps its connections' buffers.
 */
const MEMORY_SLACK = 8 * 1024 * 1024;
const MEMORY_PER_ITERATION = 2 * 1024;
const WARMUP = 5;

export interface FuzzReport {
  failures: string[];
  summary: string;
}

/**
 * A fresh client on a fresh healthy node reads system.local: the core is alive and right.
 * The node is fresh each time because a FakeNode records every request and connection it
 * saw: one kept for the whole run held ~5.4 KB per health check, which the memory check
 * then blamed on the client.
 */
async function healthCheck(bundle: Bundle, seed: number, failures: string[]): Promise<void> {
  const healthy = await FakeNode.start();
  try {
    await checkClient(bundle, healthy, seed, failures);
  } finally {
    await healthy.stop();
  }
}

async function checkClient(bundle: Bundle, healthy: FakeNode, seed: number, failures: string[]): Promise<void> {
  const client = new bundle.Client({ contactPoints: [healthy.address], pooling: { heartBeatInterval: 0 }, socketOptions: { readTimeout: 3000 } });
  const what = `seed ${seed}: health check on a fresh client`;
  const s = await settleWithin(client.execute("SELECT release_version FROM system.local"), 10000, what, failures);
  if (s && !s.ok) failures.push(`${what}: ${(s.error as Error)?.stack ?? s.error}`);
  else if (s && (s.value as { first(): { release_version: string } }).first()?.release_version !== "5.0.6") failures.push(`${what}: wrong row`);
  await settleWithin(client.shutdown(), 10000, `${what} (shutdown)`, failures);
}

export async function runFuzz(bundle: Bundle, seeds: number[], o: { verbose: boolean; sample: () => MemorySample }): Promise<FuzzReport> {
  const trap = new EscapeTrap();
  trap.install();
  const failures: string[] = [];
  const ops = new Map<FuzzOp, number>();
  const layers = new Map<string, number>();
  const rejections = new Map<string, number>();
  let base: MemorySample | undefined;
  const t0 = Date.now();
  try {
    for (const [i, seed] of seeds.entries()) {
      const r = await runIteration(bundle, seed);
      await new Promise((res) => setTimeout(res, 5));
      const escaped = trap.take().map((e) => `seed ${seed}: ${e}`);
      const broken = [...r.failures, ...escaped];
      await healthCheck(bundle, seed, broken);
      ops.set(r.op, (ops.get(r.op) ?? 0) + 1);
      for (const name of r.rejections) rejections.set(name, (rejections.get(name) ?? 0) + 1);
      for (const p of r.plan) {
        const layer = /^\[(\w+)\]/.exec(p)?.[1];
        if (layer) layers.set(layer, (layers.get(layer) ?? 0) + 1);
      }
      if (broken.length) {
        failures.push(`seed ${seed} (${r.plan.join(" | ")}):\n  ${broken.join("\n  ")}`);
        console.log(`FAILING ${failures.at(-1)}`); // now, so a long run cut short still says
      }
      if (o.verbose) console.log(`seed ${seed}: ${r.plan.join("\n  ")}`);
      if (i + 1 === WARMUP) base = o.sample();
      if ((i + 1) % 250 === 0) console.log(`  ${i + 1} seeds done, ${failures.length} failing, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  } finally {
    await new Promise((res) => setTimeout(res, 50));
    failures.push(...trap.take());
    trap.uninstall();
  }
  const end = o.sample();
  const measured = seeds.length - WARMUP;
  if (base) {
    const bound = MEMORY_SLACK + MEMORY_PER_ITERATION * measured;
    for (const k of ["wasm", "heap"] as const) {
      const grown = end[k] - base[k];
      if (grown > bound) failures.push(`${k} grew by ${(grown / 2 ** 20).toFixed(1)} MiB over ${measured} iterations (bound ${(bound / 2 ** 20).toFixed(1)} MiB)`);
    }
  }
  const mib = (n: number) => (n / 2 ** 20).toFixed(1);
  const counts = (m: Map<string, number>) => [...m].map(([k, v]) => `${k} ${v}`).join(", ");
  const summary = `whole-client fuzz: ${seeds.length} seeds (${seeds[0]}..${seeds.at(-1)}) in ${((Date.now() - t0) / 1000).toFixed(1)} s; ops: ${counts(ops)}; lies by layer: ${counts(layers)}; rejections: ${counts(rejections)}; ` +
    `memory after warm-up → end: WASM ${mib(base?.wasm ?? 0)} → ${mib(end.wasm)} MiB, heap ${mib(base?.heap ?? 0)} → ${mib(end.heap)} MiB (${base && measured > 0 ? ((end.heap - base.heap) / measured).toFixed(0) : "?"} B per iteration${(globalThis as { gc?: unknown }).gc ? "" : ", no forced GC: run with --v8-flags=--expose-gc"}); ${failures.length} failing seed(s)`;
  return { failures, summary };
}
