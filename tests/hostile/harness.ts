/**
 * The hostile-server suite's runtime-neutral part: a case gets the built bundle's `Client`
 * and error classes, runs against fake nodes, and the harness checks after every case that
 * the process's and the WASM core's memory came back near where they were, and that a fresh
 * client still works against a healthy node (the WASM instance survived).
 */
import process from "node:process";
import { FakeNode } from "../fakenode/mod.ts";
import { KNOWN_FAILURES } from "./known_failures.ts";
import { installWasmProbe, wasmMemoryBytes } from "../wasm_probe.ts";

export { installWasmProbe };

// deno-lint-ignore no-explicit-any
type Any = any;

/** What a case needs from the bundle under test (dist/deno.js or dist/node.js). */
export interface Bundle {
  Client: new (options: Any) => Any;
  CqlProtocolError: Any;
  ConnectionError: Any;
  NoHostAvailableError: Any;
  OperationTimedOutError: Any;
  AuthenticationError: Any;
  ResponseError: Any;
  DriverError: Any;
}

export interface HostileCase {
  name: string;
  run(bundle: Bundle): Promise<void>;
}

/** Growth allowed across one case: generous, so only a leak or a bomb trips it. */
export const MEMORY_BOUND = 64 * 1024 * 1024;


export interface MemorySample {
  rss: number;
  heap: number;
  wasm: number;
}

export function sampleMemory(): MemorySample {
  (globalThis as Any).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, wasm: wasmMemoryBytes() };
}

/** A fresh client against a fresh healthy node answers a query: the core is still usable. */
async function assertCoreAlive(bundle: Bundle): Promise<void> {
  const node = await FakeNode.start();
  const client = new bundle.Client({ contactPoints: [node.address], pooling: { heartBeatInterval: 0 } });
  try {
    await client.execute("SELECT release_version FROM system.local");
  } finally {
    await client.shutdown();
    await node.stop();
  }
}

/** The largest growth any case caused, and the largest RSS seen, for the closing summary. */
const peak = { rss: 0, heap: 0, wasm: 0, rssTotal: 0, wasmTotal: 0, cases: 0 };

export function memorySummary(): string {
  const mib = (n: number) => (n / 2 ** 20).toFixed(1);
  return `hostile suite: ${peak.cases} cases measured; largest growth in one case: RSS ${mib(peak.rss)} MiB, heap ${mib(peak.heap)} MiB, ` +
    `WASM ${mib(peak.wasm)} MiB; peak RSS ${mib(peak.rssTotal)} MiB, WASM memory ${mib(peak.wasmTotal)} MiB`;
}

/** Runs one case with the memory and liveness checks around it. */
export async function runCase(c: HostileCase, bundle: Bundle): Promise<void> {
  if (wasmMemoryBytes() < 0) throw new Error("the WASM probe did not see the bundle's instance: import the bundle after installWasmProbe()");
  const before = sampleMemory();
  await c.run(bundle);
  // Let closed sockets and timers settle before measuring.
  await new Promise((r) => setTimeout(r, 50));
  const after = sampleMemory();
  const grown = { rss: after.rss - before.rss, heap: after.heap - before.heap, wasm: after.wasm - before.wasm };
  peak.cases++;
  peak.rss = Math.max(peak.rss, grown.rss);
  peak.heap = Math.max(peak.heap, grown.heap);
  peak.wasm = Math.max(peak.wasm, grown.wasm);
  peak.rssTotal = Math.max(peak.rssTotal, after.rss);
  peak.wasmTotal = Math.max(peak.wasmTotal, after.wasm);
  for (const [what, bytes] of Object.entries(grown)) {
    if (bytes > MEMORY_BOUND) {
      throw new Error(`${c.name}: ${what} grew by ${(bytes / 2 ** 20).toFixed(1)} MiB (bound ${MEMORY_BOUND / 2 ** 20} MiB)`);
    }
  }
  await assertCoreAlive(bundle);
}

/** The summary every run ends with: the known failures, never silently skipped. */
export function knownFailureReport(ranAll: boolean): string {
  const lines = Object.entries(KNOWN_FAILURES).map(([name, why]) => `  - ${name}: ${why}`);
  if (lines.length === 0) return "hostile suite: no known failures";
  const how = ranAll
    ? "all run (CQLWIRE_HOSTILE_KNOWN=1), each must still fail"
    : "[fails] ones ran and must still fail; [crash]/[hang] ones were NOT RUN (CQLWIRE_HOSTILE_KNOWN=1 runs them)";
  return `hostile suite: ${lines.length} KNOWN FAILURE(S), ${how}:\n${lines.join("\n")}`;
}

export function isKnownFailure(name: string): boolean {
  return Object.hasOwn(KNOWN_FAILURES, name);
}

export function runKnownFailures(): boolean {
  return process.env.CQLWIRE_HOSTILE_KNOWN === "1";
}
