/**
 * The hostile-server suite on Deno, against the built bundle (dist/deno.js): `deno test -A
 * --v8-flags=--expose-gc tests/hostile/`. The Node runner is node_runner.vitest.ts.
 */
import { type Bundle, installWasmProbe } from "./harness.ts";
import { registerCases } from "./suite.ts";

installWasmProbe();
const bundle = (await import("../../dist/deno.js")) as unknown as Bundle;

registerCases(
  (name, fn) => Deno.test({ name, fn, sanitizeOps: false, sanitizeResources: false }),
  () => bundle,
);
