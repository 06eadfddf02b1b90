/**
 * Registers the hostile cases with a test runner (Deno.test or vitest's `it`), so both
 * runtimes run the same cases on their own bundle. Known failures (known_failures.ts) that
 * crash or hang are not run unless CQLWIRE_HOSTILE_KNOWN=1; those that fail cleanly are run
 * and must fail. The list is printed at the end of every run.
 */
import { type Bundle, isKnownFailure, knownFailureReport, memorySummary, runCase, runKnownFailures } from "./harness.ts";
import { KNOWN_FAILURES, KNOWN_FAILURE_KINDS } from "./known_failures.ts";
import { CASES } from "./cases/mod.ts";

export type Register = (name: string, fn: () => Promise<void>) => void;

export function registerCases(register: Register, bundle: () => Bundle): void {
  const names = new Set(CASES.map((c) => c.name));
  register("every known failure names a case of the suite", () => {
    const stale = Object.keys(KNOWN_FAILURES).filter((n) => !names.has(n));
    if (stale.length) return Promise.reject(new Error(`known_failures.ts names no case: ${stale.join("; ")}`));
    return Promise.resolve();
  });
  for (const c of CASES) {
    if (!isKnownFailure(c.name)) {
      register(c.name, () => runCase(c, bundle()));
      continue;
    }
    const kind = KNOWN_FAILURE_KINDS[c.name];
    if (kind !== "fails" && !runKnownFailures()) continue;
    register(`[known failure] ${c.name}`, async () => {
      try {
        await runCase(c, bundle());
      } catch (e) {
        console.log(`known failure, still failing: ${c.name}: ${(e as Error).message.split("\n")[0]}`);
        return;
      }
      throw new Error(`${c.name} passes now: remove it from tests/hostile/known_failures.ts`);
    });
  }
  register("known failures and memory of the hostile suite (printed, never skipped silently)", () => {
    console.log(knownFailureReport(runKnownFailures()));
    console.log(memorySummary());
    return Promise.resolve();
  });
}
