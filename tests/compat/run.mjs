/**
 * Runs the compatibility cases against `cqlwire/compat` as an installed package resolves it
 * (the runtime's own export condition): `node run.mjs`, `deno run -A run.mjs`, `bun run.mjs`.
 * Arguments: RUNTIME HOST:PORT KEYSPACE. Exits non-zero when a case fails.
 */
import * as cassandra from "cqlwire/compat";
import { compatCases, runCompatCases } from "./cases.mjs";

const [runtime, host, keyspace] = process.argv.slice(2);
// On Node (and Bun, which takes the node condition) stream() must be a stream.Readable.
const Readable = runtime === "deno" ? undefined : (await import("node:stream")).Readable;
const cases = compatCases(cassandra, { contactPoints: [host], keyspace, runtime, Readable });
const failures = await runCompatCases(cases, `${runtime} esm`, (line) => console.log(line));
console.log(`${runtime}: ${cases.length - failures}/${cases.length} compat cases passed`);
process.exit(failures > 0 ? 1 : 0);
