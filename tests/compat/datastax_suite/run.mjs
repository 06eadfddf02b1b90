/**
 * Runs DataStax's own tests (vendored from datastax/nodejs-driver, see README) against
 * cqlwire/compat (dist/compat-node.cjs) and, with --driver datastax or both, against the real
 * cassandra-driver 4.10.0, on the Cassandra node at DSX_CONTACT (default 127.0.0.1).
 *
 *   node tests/compat/datastax_suite/run.mjs [--driver cqlwire|datastax|both]
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const require = createRequire(import.meta.url);
const { files, leftOut, leftOutOnDataStax, fixedKeyspaces } = require("./suite.cjs");
const args = process.argv.slice(2);
const which = args.includes("--driver") ? args[args.indexOf("--driver") + 1] : "cqlwire";
const drivers = which === "both" ? ["datastax", "cqlwire"] : [which];

/**
 * The server's version, as ccm would have been told it (the tests gate on it: helper.vit), after
 * dropping the keyspaces an interrupted run left (`dsx_` names and suite.cjs's fixed ones): on a
 * shared node their tables would pile up in its heap.
 */
async function prepareNode() {
  const { Client } = require(path.join(root, "node_modules/cassandra-driver"));
  const client = new Client({ contactPoints: [process.env.DSX_CONTACT ?? "127.0.0.1"], localDataCenter: "datacenter1" });
  try {
    const keyspaces = (await client.execute("SELECT keyspace_name FROM system_schema.keyspaces")).rows.map((r) => r.keyspace_name);
    // DSX_PREFIX (default dsx_) keeps two runs on one shared node from dropping each other's.
    const prefix = process.env.DSX_PREFIX || "dsx_";
    for (const ks of keyspaces.filter((k) => k.startsWith(prefix) || fixedKeyspaces.includes(k))) await client.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
    return (await client.execute("SELECT release_version FROM system.local")).rows[0].release_version;
  } finally {
    await client.shutdown();
  }
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const pattern = (title) => (title.endsWith(" *") ? `${escape(title.slice(0, -1))}.*` : escape(title));
const grepOf = (titles) => `^(${titles.map(([title]) => pattern(title)).join("|")})$`;
let version = await prepareNode();
let failed = false;
for (const [i, driver] of drivers.entries()) {
  // A file may leave its fixed keyspace behind (mapper-test-helper's is never removed): each
  // driver starts from a node without them.
  if (i > 0) version = await prepareNode();
  console.log(`=== DataStax's tests on ${driver} (Cassandra ${version})`);
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/mocha/bin/mocha.js"), "--require", "./shim.cjs", "-t", "20000", "--exit", "-R", "dot", "--grep", grepOf(driver === "datastax" ? [...leftOut, ...leftOutOnDataStax] : leftOut), "--invert", ...files], {
    cwd: here,
    stdio: "inherit",
    env: { ...process.env, DSX_DRIVER: driver, CCM_VERSION: version },
  });
  if (r.status !== 0) failed = true;
}
await prepareNode();
console.log(`${leftOut.length} tests left out on both drivers, ${leftOutOnDataStax.length} on cassandra-driver only (suite.cjs says why)`);
process.exit(failed ? 1 : 0);
