/**
 * The differential compat test: every scenario runs on the real DataStax driver
 * (`cassandra-driver`, a devDependency) and on cqlwire/compat (dist/compat-node.js) against
 * the same Cassandra, in keyspaces diffcompat_a and diffcompat_b; their described results
 * must be equal. Scenarios named "known: ..." are differences the README lists (its table under
 * "Coming from the DataStax driver"): they must still differ, so that list stays true.
 *
 *   node tests/compat/differential/run.mjs [HOST:PORT] [--only NAME] [--show]
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { describe } from "./describe.mjs";
import { scenarios, settings } from "./scenarios.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const args = process.argv.slice(2);
const host = args.find((a) => !a.startsWith("--") && a.includes(":")) ?? process.env.CQLWIRE_HOSTS?.split(",")[0] ?? "127.0.0.1:9042";
settings.host = host;
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;
const show = args.includes("--show");

const require = createRequire(import.meta.url);
const driverPath = path.join(root, "node_modules/cassandra-driver");
let datastax;
try {
  datastax = require(driverPath);
} catch (e) {
  console.error(`differential: the DataStax driver is missing at ${driverPath} (a devDependency: run 'npm ci'): ${e.message}`);
  process.exit(1);
}
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
  // A "known:" scenario is a difference the README lists: it must still differ, or the README
  // (and the scenario) is out of date.
  const known = name.startsWith("known: ");
  if ((actual === expected) !== known) {
    same++;
    if (show) console.log(`${known ? "≠" : "="} ${name}\n  datastax: ${expected}${known ? `\n  cqlwire:  ${actual}` : ""}`);
    continue;
  }
  differ++;
  if (known) console.log(`✗ ${name}: no longer differs; remove it from the README's known differences\n  both: ${actual}`);
  else console.log(`✗ ${name}\n  datastax: ${expected}\n  cqlwire:  ${actual}`);
}
console.log(`${same} passed, ${differ} failed`);
process.exit(differ > 0 ? 1 : 0);
