/**
 * A SASL authenticator written in JavaScript (the DataStax driver's custom `AuthProvider`,
 * through cqlwire/compat) answers the server's AUTHENTICATE and AUTH_CHALLENGE, asynchronously,
 * and its tokens are what goes out as AUTH_RESPONSE: observed on a fake node's wire.
 */
import { assertExact } from "../exact.mjs";
import { authChallengeBody, authenticateBody, ByteWriter, FakeNode, Op } from "../fakenode/mod.ts";
import * as cassandra from "../../dist/compat-deno.js";

const CLASS = "com.example.ChallengeAuthenticator";
const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : String(b));
/** An AUTH_RESPONSE body: the token as [bytes]. */
const responseBody = (token: string) => new ByteWriter().bytes(utf8(token)).done();

/** A node asking for CLASS, then one challenge ("nonce-1"), then success with token "welcome". */
async function challengingNode(): Promise<FakeNode> {
  const node = await FakeNode.start({ auth: true });
  node.on({ opcode: Op.STARTUP }, { body: authenticateBody(CLASS), opcode: Op.AUTHENTICATE });
  // Per connection: the first AUTH_RESPONSE gets the challenge, the second the success.
  const answered = new Set<number>();
  node.on({ opcode: Op.AUTH_RESPONSE }, (req) => {
    if (answered.has(req.connection)) return { body: authChallengeBody(utf8("welcome")), opcode: Op.AUTH_SUCCESS };
    answered.add(req.connection);
    return { body: authChallengeBody(utf8("nonce-1")), opcode: Op.AUTH_CHALLENGE };
  });
  return node;
}

const later = () => new Promise((r) => setTimeout(r, 5));

/** Records each authenticator's calls, one list per connection. */
class RecordingProvider extends cassandra.auth.AuthProvider {
  perConnection: string[][] = [];
  override newAuthenticator(endpoint: string, name: string) {
    const calls = [`new ${endpoint} ${name}`];
    this.perConnection.push(calls);
    return new (class extends cassandra.auth.Authenticator {
      override initialResponse(cb: (e: Error | null, t?: Uint8Array) => void) {
        // Answers after a timer: the core must wait for it.
        later().then(() => cb(null, utf8("hello")));
      }
      override evaluateChallenge(challenge: Uint8Array, cb: (e: Error | null, t?: Uint8Array) => void) {
        calls.push(`challenge ${text(challenge)}`);
        later().then(() => cb(null, utf8(`answer to ${text(challenge)}`)));
      }
      override onAuthenticationSuccess(token: Uint8Array) {
        calls.push(`success ${text(token)}`);
      }
    })();
  }
}

// deno-lint-ignore no-explicit-any
async function connectError(node: FakeNode, provider: unknown, extra: Record<string, unknown> = {}): Promise<any> {
  const client = new cassandra.Client({ contactPoints: [node.address], localDataCenter: "dc1", authProvider: provider, pooling: { heartBeatInterval: 0 }, isMetadataSyncEnabled: false, ...extra });
  try {
    await client.connect();
    return null;
  } catch (e) {
    return e;
  } finally {
    await client.shutdown();
  }
}

Deno.test("custom AuthProvider: its async tokens are the AUTH_RESPONSE bytes; challenge and success reach it", async () => {
  const node = await challengingNode();
  const provider = new RecordingProvider();
  const client = new cassandra.Client({ contactPoints: [node.address], localDataCenter: "dc1", authProvider: provider, pooling: { heartBeatInterval: 0 }, isMetadataSyncEnabled: false, cqlwire: { discoverPeers: false } });
  try {
    await client.connect();
    const first = node.sent("AUTH_RESPONSE").filter((r) => r.connection === 1);
    assertExact(first.map((r) => r.body), [responseBody("hello"), responseBody("answer to nonce-1")]);
    assertExact(provider.perConnection[0], [`new ${node.address} ${CLASS}`, "challenge nonce-1", "success welcome"]);
    await client.execute("SELECT a FROM ks.t");
  } finally {
    await client.shutdown();
    await node.stop();
  }
});

Deno.test("custom AuthProvider: an authenticator's error fails the handshake as an AuthenticationError naming it", async () => {
  const node = await challengingNode();
  class Refusing extends cassandra.auth.AuthProvider {
    override newAuthenticator() {
      return new (class extends cassandra.auth.Authenticator {
        override initialResponse(cb: (e: Error | null) => void) {
          cb(new Error("no ticket"));
        }
      })();
    }
  }
  try {
    const e = await connectError(node, new Refusing());
    const inner = e instanceof cassandra.errors.NoHostAvailableError ? Object.values(e.innerErrors)[0] : e;
    assertExact(inner instanceof cassandra.errors.AuthenticationError, true, `got ${e}`);
    assertExact(String((inner as Error).message).includes("authenticator failed: Error: no ticket"), true, (inner as Error).message);
    assertExact(node.sent("AUTH_RESPONSE").length, 0);
  } finally {
    await node.stop();
  }
});

Deno.test("custom AuthProvider: an authenticator that never answers is bounded by the handshake deadline", async () => {
  const node = await challengingNode();
  const silent = { newAuthenticator: () => ({ initialResponse() {}, evaluateChallenge() {} }) };
  try {
    const e = await connectError(node, silent, { socketOptions: { connectTimeout: 300 } });
    const inner = e instanceof cassandra.errors.NoHostAvailableError ? Object.values(e.innerErrors)[0] : e;
    assertExact(/handshake/i.test(String((inner as Error)?.message)), true, `got ${e}: ${(inner as Error)?.message}`);
    assertExact(node.sent("AUTH_RESPONSE").length, 0);
  } finally {
    await node.stop();
  }
});

Deno.test("PlainTextAuthProvider stays the core's SASL PLAIN: \\0user\\0password on the wire", async () => {
  const node = await FakeNode.start({ auth: true });
  const client = new cassandra.Client({ contactPoints: [node.address], localDataCenter: "dc1", authProvider: new cassandra.auth.PlainTextAuthProvider("u", "p"), pooling: { heartBeatInterval: 0 }, isMetadataSyncEnabled: false });
  try {
    await client.connect();
    assertExact(node.sent("AUTH_RESPONSE")[0].body, new ByteWriter().bytes(utf8("\0u\0p")).done());
  } finally {
    await client.shutdown();
    await node.stop();
  }
});
