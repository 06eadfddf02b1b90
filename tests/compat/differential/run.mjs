/**
 * The differential compat test: every scenario runs on the real DataStax driver
 * (`cassandra-driver`, a devDependency) and on cqlwire/compat (dist/compat-node.js) against
 * the same Cassandra, in keyspaces diffcompat_a and diffcompat_b; their described results
 * must be equal, but for the differences listed in KNOWN (each one said in the README).
 *
 *   node tests/compat/differential/run.mjs [HOST:PORT] [--only NAME] [--show]
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { describe } from "./describe.mjs";
import { scenarios } from "./scenarios.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const args = process.argv.slice(2);
const host = args.find((a) => !a.startsWith("--") && a.includes(":")) ?? "127.0.0.1:9042";
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;
const show = args.includes("--show");

const require = createRequire(import.meta.url);
const datastax = require(process.env.CASSANDRA_DRIVER ?? path.join(root, "node_modules/cassandra-driver"));
const cqlwire = await import(path.join(root, "dist/compat-node.js"));

async function runSide(driver, ks) {
  const client = new driver.Client({ contactPoints: [host], localDataCenter: "datacenter1" });
  await client.connect();
  const out = new Map();
  try {
    for (const s of scenarios) {
      if (only && s.name !== "setup" && !s.name.includes(only)) continue;
      let text;
      try {
        text = describe(await s.run(driver, client, ks));
      } catch (e) {
        text = `THREW ${describe(e)}`;
      }
      out.set(s.name, text.replaceAll(ks, "KS"));
    }
  } finally {
    await client.shutdown();
  }
  return out;
}

const real = await runSide(datastax, "diffcompat_a");
const ours = await runSide(cqlwire, "diffcompat_b");
let same = 0;
let differ = 0;
for (const [name, expected] of real) {
  const actual = ours.get(name);
  if (actual === expected) {
    same++;
    if (show) console.log(`= ${name}\n  ${expected}`);
    continue;
  }
  differ++;
  console.log(`✗ ${name}\n  datastax: ${expected}\n  cqlwire:  ${actual}`);
}
console.log(`${same} passed, ${differ} failed`);
process.exit(differ > 0 ? 1 : 0);
