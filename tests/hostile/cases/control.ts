/**
 * Hostile answers to the control connection's queries: system.local, system.peers_v2,
 * system.peers, system_schema.keyspaces (the system_schema table the core reads).
 */
import { ok } from "node:assert/strict";
import { assertExact } from "../../exact.mjs";
import { ByteWriter, Op, startCluster, stopAll } from "../../fakenode/mod.ts";
import type { HostileCase } from "../harness.ts";
import { CELL_OVERRUN, DEEP_FROZEN_CLASS, HUGE_COLUMN_COUNT, rowsWithCustomType, rowsWithNestedListType, ZERO_COLUMN_HUGE_ROWS } from "./bodies.ts";
import { aloneFailsOthersGoOn, clientOn, connectionClosedBy, queryServedBy, rejection } from "./common.ts";

/** Each control query: how the tests match it, and the core's name for it in log lines. */
interface ControlQuery {
  table: string;
  match: RegExp;
  logName: string;
}

const TABLES: ControlQuery[] = [
  { table: "system.local", match: /FROM system\.local WHERE key = 'local'$/, logName: "Local" },
  { table: "system.peers_v2", match: /FROM system\.peers_v2$/, logName: "PeersV2" },
  // Asked when peers_v2 is refused, as by Cassandra before 4.0.
  { table: "system.peers", match: /FROM system\.peers$/, logName: "Peers" },
  { table: "system_schema.keyspaces", match: /FROM system_schema\.keyspaces$/, logName: "Keyspaces" },
];

/**
 * The control node answers `query` with `body`. Alone, the client logs which query could
 * not be read and why (side and field), closes that connection and fails to connect with
 * NoHostAvailableError; with a second contact point it goes on through the other node.
 */
function controlCase(what: string, query: ControlQuery, body: Uint8Array, field: RegExp): HostileCase {
  return {
    name: `${query.table}: ${what}`,
    async run(bundle) {
      const [bad, good] = await startCluster(2);
      if (query.logName === "Peers") bad.on({ query: /FROM system\.peers_v2$/ }, { error: { code: 0x2200, message: "unconfigured table peers_v2" } });
      bad.on({ query: query.match }, { body });
      try {
        await aloneFailsOthersGoOn(bundle, bad, good, (e, logs) => {
          ok(e instanceof bundle.NoHostAvailableError, `${e?.name}: ${e?.message}`);
          assertExact(e.code, "ERR_NO_HOST");
          const prefix = `could not read ${query.logName} on the control connection: remote protocol error in `;
          const line = logs.find((l) => l.startsWith(prefix));
          ok(line, `no log line names the query, side and field: ${JSON.stringify(logs)}`);
          ok(field.test(line.slice(prefix.length)), `the log line names another field: ${line}`);
        });
      } finally {
        await stopAll([bad, good]);
      }
    },
  };
}

const LOCAL = TABLES[0];

export const CONTROL_CASES: HostileCase[] = [
  ...TABLES.map((q) => controlCase("a cell declares 2 GiB and carries none", q, CELL_OVERRUN, /^row cell at byte \d+:/)),
  ...TABLES.map((q) => controlCase("2^31-1 columns declared, one carried", q, HUGE_COLUMN_COUNT, /^rows metadata columns_count at byte 12:/)),
  ...TABLES.map((q) => controlCase("zero columns and 2^31-1 rows", q, ZERO_COLUMN_HUGE_ROWS, /^rows[ _]count at byte 12:/)),
  controlCase("a list type nested 100000 deep", LOCAL, rowsWithNestedListType(100000), /^type option at byte \d+:/),
  controlCase("a marshal class FrozenType( x 5460 deep", LOCAL, rowsWithCustomType(DEEP_FROZEN_CLASS), /^custom type class at byte \d+:/),
  ...[TABLES[0], TABLES[1], TABLES[3]].map(silentControlCase),
];

/**
 * Deadlines of the silent-control cases: a request timeout far longer than the connect's
 * deadline (3 × connectTimeout, 900 ms), as a client with a generous readTimeout has.
 */
const SILENT_CONTROL_SOCKET = { connectTimeout: 300, readTimeout: 60000 };

/**
 * The control node answers every control query but `query`, which it leaves unanswered:
 * while the client joins, a control query waits the connect timeout, not readTimeout. With
 * another contact point the connect goes on through it at about connectTimeout (waiting
 * readTimeout, the connect's own deadline failed it first); alone, the connect's deadline
 * error names the host and the query it was waiting for.
 */
function silentControlCase(query: ControlQuery): HostileCase {
  return {
    name: `${query.table}: never answered while joining`,
    async run(bundle) {
      const [bad, good] = await startCluster(2);
      bad.on({ query: query.match }, { silence: true });
      // The bad node's handshake ends first, so its connection takes the control.
      good.on({ opcode: Op.OPTIONS }, { delayMs: 150, then: { body: new ByteWriter().short(0).done(), opcode: Op.SUPPORTED } });
      const alone = clientOn(bundle, [bad], { socketOptions: SILENT_CONTROL_SOCKET });
      const both = clientOn(bundle, [bad, good], { socketOptions: SILENT_CONTROL_SOCKET });
      const line = `control query ${query.logName} failed: no response within 300 ms (host ${bad.address})`;
      try {
        const started = Date.now();
        await both.client.connect();
        const took = Date.now() - started;
        // Not before the control query's 300 ms; well before the connect's 900 ms deadline.
        ok(took >= 290 && took < 800, `the connect took ${took} ms`);
        ok(both.logs.includes(line), JSON.stringify(both.logs));
        await connectionClosedBy(bad, 1);
        await queryServedBy(both.client, good);
        const e = await rejection(alone.client.connect());
        ok(e instanceof bundle.NoHostAvailableError, `${e?.name}: ${e?.message}`);
        assertExact([e.code, e.message], ["ERR_NO_HOST", `could not connect to ${bad.address} within 900 ms; last: ${line}`]);
      } finally {
        await alone.client.shutdown();
        await both.client.shutdown();
        await stopAll([bad, good]);
      }
    },
  };
}
