/**
 * cqlwire's side of the differential test in a child process (Deno, Bun): imports the driver
 * module it is given, runs every scenario and prints `{ scenario: description }` as one JSON
 * line on stdout. run.mjs starts it; see there.
 *
 *   deno run -A child.mjs MODULE HOST:PORT KEYSPACE [ONLY]
 *   bun child.mjs MODULE HOST:PORT KEYSPACE [ONLY]
 */
import { runSide } from "./side.mjs";

const argv = globalThis.Deno ? Deno.args : process.argv.slice(2);
const [module, host, ks, only] = argv;
// Deno documents Buffer as no global of its own (its lint rule no-node-globals), and only some
// releases define one: the driver must not need it, so it runs here without it.
if (globalThis.Deno) delete globalThis.Buffer;
const driver = await import(new URL(module, import.meta.url).href);
const out = await runSide(driver, { host, ks, only: only || null });
console.log(JSON.stringify(out));
// Exits at once: a runtime that kept a stray handle open would otherwise hang the runner.
if (globalThis.Deno) Deno.exit(0);
else process.exit(0);
