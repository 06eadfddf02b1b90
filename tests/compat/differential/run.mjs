/**
 * The differential compat test: every scenario runs on the real DataStax driver
 * (`cassandra-driver`, a devDependency, on Node) and on cqlwire/compat on each runtime it
 * promises: Node (dist/compat-node.js, in this process); Deno (dist/compat-deno.js, and its
 * source driver/compat/deno.ts as "deno-src"; child processes without a global Buffer); Bun
 * (dist/compat-node.js, the file Bun resolves `cqlwire/compat` to; a child process); workerd
 * (dist/compat-workerd.js inside a Worker, workerd.mjs). All run at once against the same
 * Cassandra, each in its own keyspace (PREFIX_a for DataStax, PREFIX_node, ...), and each
 * runtime's described results must equal DataStax's.
 *
 * Scenarios named "known: ..." are differences the README lists (its table under "Coming from
 * the DataStax driver"): on Node they must still differ, so that list stays true; on the other
 * runtimes they must read exactly as on Node. Scenarios named "known on RUNTIME[, RUNTIME]: ..."
 * are differences only those runtimes have (also in the README): they must differ there and
 * agree everywhere else. A runtime whose binary is missing fails the run.
 *
 *   node tests/compat/differential/run.mjs [HOST:PORT] [--only NAME] [--show]
 *        [--runtimes node,deno,deno-src,bun,workerd]      (CQLWIRE_DIFF_KEYSPACE=PREFIX, default diffcompat)
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { runSide } from "./side.mjs";
import { runInWorkerd } from "./workerd.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const args = process.argv.slice(2);
const host = args.find((a) => !a.startsWith("--") && a.includes(":")) ?? process.env.CQLWIRE_HOSTS?.split(",")[0] ?? "127.0.0.1:9042";
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;
const show = args.includes("--show");
const ALL_RUNTIMES = ["node", "deno", "deno-src", "bun", "workerd"];
const runtimes = args.includes("--runtimes") ? args[args.indexOf("--runtimes") + 1].split(",") : ALL_RUNTIMES;
const prefix = process.env.CQLWIRE_DIFF_KEYSPACE ?? "diffcompat";
const CHILD_TIMEOUT_MS = 240_000;

function die(message) {
  console.error(`differential: ${message}`);
  process.exit(1);
}
for (const r of runtimes) if (!ALL_RUNTIMES.includes(r)) die(`unknown runtime ${r} (known: ${ALL_RUNTIMES.join(", ")})`);

const require = createRequire(import.meta.url);
const driverPath = path.join(root, "node_modules/cassandra-driver");
let datastax;
try {
  datastax = require(driverPath);
} catch (e) {
  die(`the DataStax driver is missing at ${driverPath} (a devDependency: run 'npm ci'): ${e.message}`);
}

const DENO = path.join(root, "node_modules/.bin/deno");
const BUN = path.join(root, "node_modules/@oven/bun-linux-x64/bin/bun");
const CHILD = path.join(here, "child.mjs");
/** How each child runtime is started: its binary, its arguments, and the driver module it imports. */
const CHILDREN = {
  deno: { bin: DENO, args: ["run", "-A", "--quiet", CHILD], module: "dist/compat-deno.js" },
  // The source the bundle is built from, as `deno add jsr:` users import it.
  "deno-src": { bin: DENO, args: ["run", "-A", "--quiet", CHILD], module: "driver/compat/deno.ts" },
  bun: { bin: BUN, args: [CHILD], module: "dist/compat-node.js" },
};
const needed = ["dist/compat-node.js", ...runtimes.filter((r) => CHILDREN[r]).map((r) => CHILDREN[r].module)];
if (runtimes.includes("workerd")) needed.push("dist/compat-workerd.js");
for (const f of needed) if (!existsSync(path.join(root, f))) die(`${f} is missing: run 'make build'`);
for (const r of runtimes) {
  if (CHILDREN[r] && !existsSync(CHILDREN[r].bin)) die(`${r} is missing (${CHILDREN[r].bin}): run 'npm ci' (scripts/bootstrap does)`);
}

/** cqlwire's side in a child process of `runtime`: its JSON on stdout. */
function childSide(runtime) {
  const { bin, args: a, module } = CHILDREN[runtime];
  const driver = path.relative(here, path.join(root, module));
  return new Promise((resolve) => {
    execFile(bin, [...a, driver, host, `${prefix}_${runtime.replace("-", "_")}`, only ?? ""], { timeout: CHILD_TIMEOUT_MS, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      try {
        resolve(JSON.parse(stdout));
      } catch {
        resolve({ failure: `${runtime} gave no result (${err ? err.message.split("\n")[0] : "no JSON"})\n${stderr.slice(-3000)}${stdout.slice(-1000)}` });
      }
    });
  });
}

const started = Date.now();
// The children start first and run beside the Node sides: each has its own keyspace.
const pending = Object.fromEntries(runtimes.filter((r) => r !== "node").map((r) => [r, r === "workerd" ? runInWorkerd({ root, host, ks: `${prefix}_workerd`, only }) : childSide(r)]));
const real = await runSide(datastax, { host, ks: `${prefix}_a`, only });
const results = {};
// Always run: on the other runtimes a "known:" scenario must read as on Node.
const nodeSide = await runSide(await import(path.join(root, "dist/compat-node.js")), { host, ks: `${prefix}_node`, only });
if (runtimes.includes("node")) results.node = nodeSide;
for (const [r, p] of Object.entries(pending)) results[r] = await p;

/** The runtimes a "known on A, B: ..." scenario names. */
function knownOn(name) {
  const m = /^known on ([a-z, -]+): /.exec(name);
  return m ? m[1].split(",").map((s) => s.trim()) : [];
}

let same = 0;
let differ = 0;
for (const runtime of runtimes) {
  const ours = results[runtime];
  if (ours.failure) {
    differ++;
    console.log(`✗ [${runtime}] ${ours.failure}`);
    continue;
  }
  for (const [name, expected] of Object.entries(real)) {
    const actual = ours[name];
    const everywhere = name.startsWith("known: ");
    // A difference every runtime shares is Node's: elsewhere it must read as on Node.
    const reference = everywhere && runtime !== "node" ? nodeSide[name] : expected;
    const known = runtime === "node" ? everywhere : knownOn(name).includes(runtime);
    if ((actual === reference) !== known) {
      same++;
      if (show) console.log(`${known ? "≠" : "="} [${runtime}] ${name}\n  datastax: ${expected}${known || actual !== expected ? `\n  cqlwire:  ${actual}` : ""}`);
      continue;
    }
    differ++;
    const against = reference === expected ? "datastax" : "node    ";
    if (known) console.log(`✗ [${runtime}] ${name}: no longer differs; remove it from the README's known differences\n  both: ${actual}`);
    else console.log(`✗ [${runtime}] ${name}\n  ${against}: ${reference}\n  cqlwire:  ${actual}`);
  }
}
console.log(`${same} passed, ${differ} failed (${Object.keys(real).length} scenarios on ${runtimes.join(", ")}; ${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exit(differ > 0 ? 1 : 0);
