/**
 * The whole-client fuzzer on Deno, against the built bundle (dist/deno.js): a real Client
 * (TypeScript host and WASM core) against a fake node whose replies are real ones with a
 * seeded lie (fuzz/iteration.ts). `make test` runs a fixed set of seeds; longer runs:
 *   CQLWIRE_FUZZ_SEEDS=5000 deno test -A --v8-flags=--expose-gc tests/hostile/fuzz_test.ts
 *   (CQLWIRE_FUZZ_FIRST=N starts there; CQLWIRE_FUZZ_SEED=N replays one seed, with its plan,
 *   CQLWIRE_FUZZ_LOG=1 adds the client's log). A seed fixes every choice, but the replies draw
 *   from one generator in the order requests arrive, so a seed whose requests race (a reconnect,
 *   shutdown in flight) may replay differently: run it a few times.
 * After every iteration a fresh client on a healthy node must still answer (the WASM
 * instance survived); after the run the WASM memory and the JS heap must be back near
 * where they were after the first iterations.
 */
import { type Bundle, installWasmProbe, sampleMemory } from "./harness.ts";
import { runFuzz } from "./fuzz/run.ts";

installWasmProbe();
const bundle = (await import("../../dist/deno.js")) as unknown as Bundle;

/** Seeds that once broke an invariant (each has its hand-written case in cases/): always run. */
const FOUND = [46, 1005, 1820, 3399, 3639, 5723];

const env = (k: string) => Deno.env.get(k);
const one = env("CQLWIRE_FUZZ_SEED");
const first = Number(env("CQLWIRE_FUZZ_FIRST") ?? 1);
const count = Number(env("CQLWIRE_FUZZ_SEEDS") ?? 150);
const seeds = one ? [Number(one)] : [...FOUND, ...Array.from({ length: count }, (_, i) => first + i)];

Deno.test({
  name: one ? `whole-client fuzz: seed ${one}` : `whole-client fuzz: seeds ${FOUND.join(", ")} and ${first}..${first + count - 1}`,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const report = await runFuzz(bundle, seeds, { verbose: one !== undefined, sample: sampleMemory });
    console.log(report.summary);
    if (report.failures.length) throw new Error(`${report.failures.length} invariant(s) broken:\n${report.failures.join("\n")}`);
  },
});
