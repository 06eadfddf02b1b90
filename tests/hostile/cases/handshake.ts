/** Hostile bytes during the handshake: SUPPORTED, AUTHENTICATE, AUTH_CHALLENGE, silence. */
import { ok } from "node:assert/strict";
import { assertExact } from "../../exact.mjs";
import { authChallengeBody, ByteWriter, FakeNode, Op, type Reply, startCluster, stopAll, utf8 } from "../../fakenode/mod.ts";
import type { Bundle, HostileCase } from "../harness.ts";
import { aloneFailsOthersGoOn, assertNoHost, assertRemoteProtocolError, clientOn, connectionClosedBy, eventually, queryServedBy } from "./common.ts";

type Check = (bundle: Bundle, e: Any, bad: FakeNode) => void;

/**
 * `bad` answers `op` with `reply`: a client on `bad` alone fails to connect as `check`
 * says and closes the connection; a client on `bad` and `good` goes on through `good`.
 */
function handshakeCase(name: string, op: number, reply: Reply, check: Check, auth = false): HostileCase {
  return {
    name,
    async run(bundle) {
      const [bad, good] = await startCluster(2, { auth });
      bad.on({ opcode: op }, reply);
      const credentials = { username: "cassandra", password: "cassandra" };
      try {
        await aloneFailsOthersGoOn(bundle, bad, good, (e) => check(bundle, e, bad), { credentials });
      } finally {
        await stopAll([bad, good]);
      }
    },
  };
}

// deno-lint-ignore no-explicit-any
type Any = any;

/** NoHostAvailableError, with the protocol error naming `field` as the node's error. */
const protocolError = (field: string): Check => (bundle, e, bad) =>
  assertNoHost(bundle, e, bad, (inner) => assertRemoteProtocolError(bundle, inner, field));

export const HANDSHAKE_CASES: HostileCase[] = [
  handshakeCase(
    "SUPPORTED declares 65535 options and carries none",
    Op.OPTIONS,
    { body: Uint8Array.of(0xff, 0xff), opcode: Op.SUPPORTED },
    protocolError("supported key"),
  ),
  handshakeCase(
    "SUPPORTED option declares 65535 values and carries none",
    Op.OPTIONS,
    { body: new ByteWriter().short(1).string("COMPRESSION").short(0xffff).done(), opcode: Op.SUPPORTED },
    protocolError("supported values"),
  ),
  handshakeCase(
    "AUTH_CHALLENGE token declares 2 GiB and carries none",
    Op.AUTH_RESPONSE,
    { body: Uint8Array.of(0x7f, 0xff, 0xff, 0xff), opcode: Op.AUTH_CHALLENGE },
    protocolError("auth challenge token"),
    true,
  ),
  handshakeCase(
    "AUTH_CHALLENGE again and again (PLAIN expects none)",
    Op.AUTH_RESPONSE,
    { body: authChallengeBody(utf8("more")), opcode: Op.AUTH_CHALLENGE },
    (bundle, e) => {
      ok(e instanceof bundle.AuthenticationError, `${e.name}: ${e.message}`);
      assertExact(e.code, "ERR_AUTH");
      ok(e.message.startsWith("authentication failed: the server sent a SASL challenge"), e.message);
    },
    true,
  ),
  {
    // socketOptions.connectTimeout is also the core's handshake deadline (DataStax's meaning):
    // the node's own connection ends with a handshake timeout, not only the whole connect.
    name: "a node accepts TCP and never answers OPTIONS",
    async run(bundle) {
      const [bad, good] = await startCluster(2);
      bad.on({ opcode: Op.OPTIONS }, { silence: true });
      const socketOptions = { connectTimeout: 300, readTimeout: 2000 };
      try {
        await aloneFailsOthersGoOn(bundle, bad, good, (e) => {
          assertNoHost(bundle, e, bad, (inner) => {
            ok(inner instanceof bundle.ConnectionError, `${inner.name}: ${inner.message}`);
            assertExact(
              [inner.name, inner.code, inner.message],
              ["ConnectionError", "ERR_CONNECTION", `the server did not complete the handshake within 300 ms (stuck in Options) (host ${bad.address})`],
            );
          });
        }, { socketOptions });
      } finally {
        await stopAll([bad, good]);
      }
    },
  },
  {
    name: "AUTHENTICATE names no readable authenticator: PLAIN credentials still go out",
    async run(bundle) {
      const node = await FakeNode.start({ auth: true });
      node.on({ opcode: Op.STARTUP }, { body: Uint8Array.of(0xff, 0xff), opcode: Op.AUTHENTICATE });
      const { client } = clientOn(bundle, [node], { credentials: { username: "u", password: "p" } });
      try {
        await client.connect();
        const token = node.sent("AUTH_RESPONSE")[0]?.authToken;
        assertExact(token, Uint8Array.of(0, 0x75, 0, 0x70));
      } finally {
        await client.shutdown();
        await node.stop();
      }
    },
  },
  {
    // Issue #12 defect 4: the handshake of a reconnection has no deadline.
    name: "a node goes silent in the handshake of a reconnection",
    async run(bundle) {
      const [flaky, good] = await startCluster(2);
      const { client } = clientOn(bundle, [good], { socketOptions: { connectTimeout: 1000, readTimeout: 2000 } });
      try {
        await client.connect();
        await eventually(() => flaky.connections.length > 0, "the client connects to the discovered node");
        const first = flaky.connections.length;
        flaky.on({ opcode: Op.OPTIONS, where: (r) => r.connection > first }, { silence: true });
        for (const c of flaky.connections) c.reset();
        await eventually(() => flaky.connections.length > first, "the client reconnects to the node");
        await connectionClosedBy(flaky, first + 1);
        await queryServedBy(client, good);
      } finally {
        await client.shutdown();
        await stopAll([flaky, good]);
      }
    },
  },
];
