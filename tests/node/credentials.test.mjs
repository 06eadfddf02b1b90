// Credentials configured without TLS for a host off this machine give one "log" warning per
// host (issue #12, defect 7), on the built bundle. The socket factory refuses every
// connection: the warning comes before any byte is sent, and no server is needed.
import { ok } from "node:assert/strict";
import { assertExact } from "../exact.mjs";
import { describe, test } from "vitest";
import * as cqlwire from "../../dist/node.js";

const REMOTE = ["192.0.2.10:9042", "192.0.2.10:9043", "192.0.2.11:9042"];
const LOCAL = ["127.0.0.1:9042", "[::1]:9042", "localhost:9042"];
const PASSWORD = "pa55-word";

/** Connects (every socket refused) and returns the "log" events seen. */
async function logsOf(options) {
  const client = new cqlwire.Client({
    localDataCenter: "datacenter1",
    socketOptions: { connectTimeout: 200 },
    socketFactory: () => Promise.reject(new Error("refused by the test")),
    ...options,
  });
  const logs = [];
  client.on("log", (level, message) => logs.push([level, message]));
  try {
    await client.connect();
  } catch (e) {
    ok(e instanceof cqlwire.NoHostAvailableError, String(e));
  } finally {
    await client.shutdown();
  }
  return logs;
}

const warning = (address) =>
  `credentials of user 'loader' go to ${address} in clear text (no TLS) when it asks for authentication: ` +
  "enable TLS, or connect over loopback";

describe("clear-text credentials warning (dist/node.js)", () => {
  test("one warning per remote host, none for loopback", async () => {
    const logs = await logsOf({
      contactPoints: [...REMOTE, ...LOCAL],
      credentials: { username: "loader", password: PASSWORD },
    });
    const warnings = logs.filter(([level]) => level === "warning");
    assertExact(warnings.sort(), [["warning", warning("192.0.2.10:9042")], ["warning", warning("192.0.2.11:9042")]]);
    ok(!JSON.stringify(logs).includes(PASSWORD), JSON.stringify(logs));
  });

  test("no warning with TLS, or without credentials", async () => {
    const withTls = await logsOf({
      contactPoints: REMOTE,
      credentials: { username: "loader", password: PASSWORD },
      tls: {},
    });
    const withoutCredentials = await logsOf({ contactPoints: REMOTE });
    assertExact([withTls.filter(([level]) => level === "warning"), withoutCredentials.filter(([l]) => l === "warning")], [[], []]);
  });
});
