/**
 * Hostile answers to the schema reads that come after the handshake: the schema-agreement
 * queries after a DDL (schema_version of system.local and system.peers), and
 * system_schema.columns, which bulkLoad reads for a table's columns.
 */
import { ok } from "node:assert/strict";
import { schemaChangeBody, startCluster, stopAll } from "../../fakenode/mod.ts";
import type { HostileCase } from "../harness.ts";
import { assertExact } from "../../exact.mjs";
import { CELL_OVERRUN, ZERO_COLUMN_HUGE_ROWS } from "./bodies.ts";
import { assertRemoteProtocolError, clientOn, connectionClosedBy, queryServedBy, rejection } from "./common.ts";

const DDL = "CREATE TABLE ks.x (a int PRIMARY KEY)";

/**
 * A DDL on the control node, whose agreement query `query` gets `body`: the DDL still
 * settles, the log names the query, side and field, the control connection is closed, and
 * the session goes on through the other node.
 */
function agreementCase(name: string, query: RegExp, logName: string, body: Uint8Array, field: RegExp): HostileCase {
  return {
    name: `schema agreement: ${name}`,
    async run(bundle) {
      const [bad, good] = await startCluster(2);
      for (const n of [bad, good]) n.on({ query: "CREATE TABLE" }, { body: schemaChangeBody("CREATED", "TABLE", "ks", "x") });
      bad.on({ query }, { body });
      const { client, logs } = clientOn(bundle, [bad]);
      try {
        await client.connect();
        const control = bad.connections.length;
        await client.execute(DDL);
        const prefix = `could not read ${logName} on the control connection: remote protocol error in `;
        const line = logs.find((l) => l.startsWith(prefix));
        ok(line, `no log line names the query, side and field: ${JSON.stringify(logs)}`);
        ok(field.test(line.slice(prefix.length)), line);
        await connectionClosedBy(bad, control);
        await queryServedBy(client, good);
      } finally {
        await client.shutdown();
        await stopAll([bad, good]);
      }
    },
  };
}

export const SCHEMA_CASES: HostileCase[] = [
  agreementCase("system.local schema_version, zero columns and 2^31-1 rows", /^SELECT schema_version FROM system\.local/, "SchemaLocal", ZERO_COLUMN_HUGE_ROWS, /^rows count at byte 12:/),
  agreementCase("system.peers schema_version, a cell declares 2 GiB", /^SELECT peer, schema_version FROM system\.peers$/, "SchemaVersions", CELL_OVERRUN, /^row cell at byte \d+:/),
  {
    name: "system_schema.columns read by bulkLoad: a cell declares 2 GiB",
    async run(bundle) {
      const [node] = await startCluster(1);
      node.on({ query: /FROM system_schema\.columns/ }, { body: CELL_OVERRUN });
      const { client } = clientOn(bundle, [node]);
      try {
        const input = (async function* () {
          yield new TextEncoder().encode("1\n");
        })();
        const e = await rejection(client.bulkLoad(input, { table: "ks.t" }));
        assertRemoteProtocolError(bundle, e, "column c");
        assertExact(node.userRequests().filter((r) => r.op !== "QUERY").map((r) => r.op), []);
        await queryServedBy(client, node);
      } finally {
        await client.shutdown();
        await stopAll([node]);
      }
    },
  },
];
