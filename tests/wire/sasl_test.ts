/**
 * A SASL authenticator written in JavaScript (the DataStax driver's custom `AuthProvider`,
 * through cqlwire/compat) answers the server's AUTHENTICATE and AUTH_CHALLENGE, asynchronously,
 * and its tokens are what goes out as AUTH_RESPONSE: observed on a fake node's wire.
 */
import { assertExact } from "../exact.mjs";
import { authChallengeBody, authenticateBody, ByteWriter, FakeNode, Op } from "../fakenode/mod.ts";
import { Buffer } from "node:buffer";
// The bundle runs; its types are its source's (esbuild emits the namespaces `auth`, `types`...
// as functions TypeScript does not read types from).
// @ts-types="../../driver/compat/deno.ts"
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
  const client = new cassandra.Client({ contactPoints: [node.address], localDataCenter: "dc1", authProvider: provider as cassandra.auth.AuthProvider, pooling: { heartBeatInterval: 0 }, isMetadataSyncEnabled: false, ...extra });
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
  const client = new cassandra.Client({ contactPoints: [node.address], localDataCenter: "dc1", authProvider: provider as cassandra.auth.AuthProvider, pooling: { heartBeatInterval: 0 }, isMetadataSyncEnabled: false, cqlwire: { discoverPeers: false } });
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

// --- The Buffer path of driver/compat/auth.ts: tokens both ways are Node Buffers, as DataStax
// authenticators expect them and hand them back (a Buffer is often a view into a pooled slab).

/** The inner error of a refused connect (the core reports a handshake per host). */
// deno-lint-ignore no-explicit-any
const innerOf = (e: any) => e instanceof cassandra.errors.NoHostAvailableError ? Object.values(e.innerErrors)[0] : e;

/** A provider whose every connection gets a new `Kind`. */
const providerOf = (Kind: new () => InstanceType<typeof cassandra.auth.Authenticator>) =>
  new (class extends cassandra.auth.AuthProvider {
    override newAuthenticator() {
      return new Kind();
    }
  })();

/** Connects through `provider` to a challenging node: the first connection's AUTH_RESPONSE bodies. */
async function authResponses(provider: unknown): Promise<Uint8Array[]> {
  const node = await challengingNode();
  const client = new cassandra.Client({ contactPoints: [node.address], localDataCenter: "dc1", authProvider: provider as cassandra.auth.AuthProvider, pooling: { heartBeatInterval: 0 }, isMetadataSyncEnabled: false, cqlwire: { discoverPeers: false } });
  try {
    await client.connect();
    return node.sent("AUTH_RESPONSE").filter((r) => r.connection === 1).map((r) => r.body);
  } finally {
    await client.shutdown();
    await node.stop();
  }
}

Deno.test("compat auth, Buffer path: a PlainTextAuthProvider subclass runs PlainTextAuthenticator in JavaScript: \\0user\\0password, then an empty answer to a challenge", async () => {
  // Not PlainTextAuthProvider itself: authOptions hands the provider to the JavaScript SASL path.
  class Subclassed extends cassandra.auth.PlainTextAuthProvider {}
  assertExact(await authResponses(new Subclassed("üser", "pä\0ss")), [
    new ByteWriter().bytes(Buffer.from("\0üser\0pä\0ss", "utf8")).done(),
    new ByteWriter().bytes(new Uint8Array(0)).done(),
  ]);
});

Deno.test("compat auth, Buffer path: Buffers in and out of a custom Authenticator, views into a larger slab, are the exact SASL bytes", async () => {
  const seen: unknown[] = [];
  class BufferProvider extends cassandra.auth.AuthProvider {
    override newAuthenticator() {
      return new (class extends cassandra.auth.Authenticator {
        override initialResponse(cb: (e: Error | null, t?: Uint8Array) => void) {
          // A view at an offset into a bigger buffer: only its own bytes may go out.
          const slab = Buffer.from("<<hello>>");
          cb(null, slab.subarray(2, 7));
        }
        override evaluateChallenge(challenge: Buffer, cb: (e: Error | null, t?: Uint8Array) => void) {
          seen.push(["challenge", Buffer.isBuffer(challenge), challenge.toString("hex")]);
          cb(null, Buffer.concat([Buffer.from([0xff, 0x00]), challenge]).subarray(1));
        }
        override onAuthenticationSuccess(token: Buffer) {
          seen.push(["success", Buffer.isBuffer(token), token.toString("utf8")]);
        }
      })();
    }
  }
  assertExact(await authResponses(new BufferProvider()), [
    new ByteWriter().bytes(utf8("hello")).done(),
    new ByteWriter().bytes(Uint8Array.of(0x00, ...utf8("nonce-1"))).done(),
  ]);
  assertExact(seen.slice(0, 2), [["challenge", true, Buffer.from("nonce-1").toString("hex")], ["success", true, "welcome"]]);
});

Deno.test("compat auth: an error called back from evaluateChallenge fails the handshake: AuthenticationError naming it", async () => {
  const node = await challengingNode();
  class FailsOnChallenge extends cassandra.auth.Authenticator {
    override initialResponse(cb: (e: Error | null, t?: Uint8Array) => void) {
      cb(null, Buffer.from("hello"));
    }
    override evaluateChallenge(_challenge: Buffer, cb: (e: Error | null) => void) {
      later().then(() => cb(new TypeError("bad nonce")));
    }
  }
  try {
    const e = innerOf(await connectError(node, providerOf(FailsOnChallenge)));
    assertExact([e instanceof cassandra.errors.AuthenticationError, e?.name, e?.code, e?.message], [
      true,
      "AuthenticationError",
      "ERR_AUTH",
      `authenticator failed: TypeError: bad nonce (host ${node.address})`,
    ]);
    assertExact(node.sent("AUTH_RESPONSE").map((r) => r.body), [new ByteWriter().bytes(utf8("hello")).done()]);
  } finally {
    await node.stop();
  }
});

Deno.test("compat auth: the base Authenticator's evaluateChallenge refuses a challenge with NotSupportedError's message", async () => {
  const node = await challengingNode();
  class OnlyInitial extends cassandra.auth.Authenticator {
    override initialResponse(cb: (e: Error | null, t?: Uint8Array) => void) {
      cb(null, Buffer.from("hello"));
    }
  }
  try {
    const e = innerOf(await connectError(node, providerOf(OnlyInitial)));
    assertExact([e instanceof cassandra.errors.AuthenticationError, e?.message], [
      true,
      `authenticator failed: NotSupportedError: Authenticator.evaluateChallenge is not implemented (host ${node.address})`,
    ]);
  } finally {
    await node.stop();
  }
});
