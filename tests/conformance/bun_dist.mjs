/**
 * The shared conformance suite on Bun against the built bundle dist/node.js (Bun takes the
 * package's `node` condition, so this is the file Bun users get). Run with Bun's binary from
 * the npm package `@oven/bun-linux-x64`:
 *
 *   node_modules/@oven/bun-linux-x64/bin/bun tests/conformance/bun_dist.mjs
 */
import * as cqlwire from "../../dist/node.js";
import { conformanceCases } from "./cases.mjs";
import { neutralAssert, runCases } from "./neutral.mjs";

const HOSTS = (process.env.CQLWIRE_HOSTS ?? "127.0.0.1:9042").split(",");
if (typeof Bun === "undefined") throw new Error("run this file with Bun");

const { Client, types } = cqlwire;
const cases = conformanceCases({ Client, types, errors: cqlwire }, neutralAssert, { contactPoints: HOSTS, keyspace: "cqlwire_bundist_it" });
const results = await runCases(cases);
for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"}  conformance (bun ${Bun.version}, dist/node.js): ${r.name}${r.ok ? "" : ` — ${r.error}`}`);
const failed = results.filter((r) => !r.ok).length;
console.log(`bun: ${results.length - failed}/${results.length} conformance cases passed`);
process.exit(failed > 0 || results.length === 0 ? 1 : 0);
