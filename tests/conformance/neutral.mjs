/**
 * A runtime-free assert adapter and a sequential runner for the conformance cases, for hosts
 * without a test framework (workerd) or where the suite's own report is wanted.
 */
import { assertExact } from "../exact.mjs";

/** `equal` is the exact comparison of every suite (tests/exact.mjs). */
export const neutralAssert = {
  ok(value, message = "assertion failed") {
    if (!value) throw new Error(message);
  },
  equal(actual, expected, message = "values differ") {
    assertExact(actual, expected, message);
  },
};

/** Runs every case in order; one failing case does not stop the others. */
export async function runCases(cases) {
  const results = [];
  for (const c of cases) {
    const started = Date.now();
    try {
      await c.run();
      results.push({ name: c.name, ok: true, ms: Date.now() - started });
    } catch (e) {
      results.push({ name: c.name, ok: false, ms: Date.now() - started, error: `${e?.name ?? "Error"}: ${e?.message ?? e}` });
    }
  }
  return results;
}
