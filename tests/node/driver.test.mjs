// The conformance suite on Node 20 against the built bundle, plus what only Node can check.
import { ok } from "node:assert/strict";
import { inspect } from "node:util";
import { beforeAll, describe, test } from "vitest";
import * as cqlwire from "../../dist/node.js";
import { conformanceCases } from "../conformance/cases.mjs";
import { assertExact } from "../exact.mjs";

const HOSTS = (process.env.CQLWIRE_HOSTS ?? "127.0.0.1:9042").split(",");
// CQLWIRE_CONFORMANCE_KEYSPACE: another keyspace, for runs beside a `make test` on the same server.
const KEYSPACE = process.env.CQLWIRE_CONFORMANCE_KEYSPACE ?? "cqlwire_node_it";
const nodeAssert = { ok: (value, message) => ok(value, message), equal: (actual, expected, message) => assertExact(actual, expected, message) };

describe(`cqlwire dist/node.js on Node ${process.version} against ${HOSTS.join(",")}`, () => {
  beforeAll(async () => {
    // A missing server must fail the suite loudly, not skip it.
    const probe = new cqlwire.Client({ contactPoints: HOSTS, localDataCenter: "datacenter1" });
    try {
      await probe.connect();
    } catch (e) {
      throw new Error(`Cassandra is not reachable at ${HOSTS.join(",")} (start it with scripts/cassandra start): ${e.message}`);
    } finally {
      await probe.shutdown();
    }
  });

  const { Client, types } = cqlwire;
  for (const c of conformanceCases({ Client, types, errors: cqlwire }, nodeAssert, { contactPoints: HOSTS, keyspace: KEYSPACE })) {
    test(c.name, c.run);
  }

  test("ResponseError's message names the error, its code and the host (what users log)", async () => {
    const c = new Client({ contactPoints: HOSTS, localDataCenter: "datacenter1" });
    try {
      await c.execute("SELEC nonsense");
      throw new Error("expected a SyntaxError");
    } catch (e) {
      ok(e instanceof cqlwire.ResponseError, String(e));
      ok(/^SyntaxError \(0x2000\) from \S+:\d+: .*SELEC/.test(e.message), `message: ${e.message}`);
      ok(inspect(e).includes("SyntaxError (0x2000)"), inspect(e));
    } finally {
      await c.shutdown();
    }
  });

  test("a shut-down client lets the process exit (no ref'd timers or sockets)", async () => {
    const { spawnSync } = await import("node:child_process");
    const script = `import { Client } from ${JSON.stringify(new URL("../../dist/node.js", import.meta.url).href)};
      const c = new Client({ contactPoints: ${JSON.stringify(HOSTS)}, localDataCenter: "datacenter1" });
      await c.execute("SELECT key FROM system.local"); await c.shutdown(); console.log("done");`;
    // A child that does not exit is killed at the deadline (status null, signal SIGTERM): no
    // wall-clock threshold on how fast a healthy one exits.
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
    assertExact([r.status, r.signal, r.stdout.trim(), r.stderr], [0, null, "done", ""], "the child exits by itself");
  });
});
