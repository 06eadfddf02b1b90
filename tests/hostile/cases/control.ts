/**
 * Hostile answers to the control connection's queries: system.local, system.peers_v2,
 * system.peers, system_schema.keyspaces (the system_schema table the core reads).
 */
import { ok } from "node:assert/strict";
import { assertExact } from "../../exact.mjs";
import { startCluster, stopAll } from "../../fakenode/mod.ts";
import type { HostileCase } from "../harness.ts";
import { CELL_OVERRUN, DEEP_FROZEN_CLASS, HUGE_COLUMN_COUNT, rowsWithCustomType, rowsWithNestedListType, ZERO_COLUMN_HUGE_ROWS } from "./bodies.ts";
import { aloneFailsOthersGoOn } from "./common.ts";

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
];
