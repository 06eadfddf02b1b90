/**
 * DataStax-style security options through cqlwire/compat (dist/compat-deno.js): `authProvider:
 * new auth.PlainTextAuthProvider(...)` against the auth cluster and `sslOptions: { ca }`
 * against the TLS cluster, as code written for cassandra-driver passes them.
 */
// The bundle runs; its types are its source's (esbuild emits the namespaces `auth`, `types`...
// as functions TypeScript does not read types from).
// @ts-types="../../driver/compat/deno.ts"
import * as cassandra from "../../dist/compat-deno.js";
import { assertExact } from "../exact.mjs";
import { requireServers } from "./settings.mjs";
import { denoSecureSettings } from "./deno_settings.ts";

const settings = denoSecureSettings();

// deno-lint-ignore no-explicit-any
async function releaseOf(options: any): Promise<string> {
  const client = new cassandra.Client({ localDataCenter: "datacenter1", ...options });
  try {
    const rs = await client.execute("SELECT release_version FROM system.local");
    return String(rs.first()?.release_version);
  } finally {
    await client.shutdown();
  }
}

Deno.test("compat secure: the clusters are reachable", () => requireServers(settings));

Deno.test("compat secure: PlainTextAuthProvider authenticates against the auth cluster", async () => {
  const release = await releaseOf({ contactPoints: [settings.authHost], authProvider: new cassandra.auth.PlainTextAuthProvider("cassandra", "cassandra") });
  assertExact(/^5\.0\./.test(release), true, `release ${release}`);
});

Deno.test("compat secure: a wrong password is an AuthenticationError, a DriverError", async () => {
  let caught: unknown;
  try {
    await releaseOf({ contactPoints: [settings.authHost], authProvider: new cassandra.auth.PlainTextAuthProvider("cassandra", "not-the-password") });
  } catch (e) {
    caught = e;
  }
  // The core reports a refused handshake per host inside NoHostAvailableError.
  const inner = caught instanceof cassandra.errors.NoHostAvailableError ? Object.values(caught.innerErrors)[0] : caught;
  assertExact(inner instanceof cassandra.errors.AuthenticationError && inner instanceof cassandra.errors.DriverError, true, `got ${caught}`);
});

Deno.test("compat secure: sslOptions { ca } connects to the TLS cluster", async () => {
  const release = await releaseOf({ contactPoints: [settings.tlsHost], sslOptions: { ca: [settings.ca] } });
  assertExact(/^5\.0\./.test(release), true, `release ${release}`);
});

Deno.test("compat secure: sslOptions { ca, cert, key } connects to the cluster that requires client certificates", async () => {
  const release = await releaseOf({ contactPoints: [settings.mtlsHost], sslOptions: { ca: [settings.mtlsCa], cert: settings.mtlsClient.cert, key: settings.mtlsClient.key } });
  assertExact(/^5\.0\./.test(release), true, `release ${release}`);
});

Deno.test("compat secure: without the client certificate the mutual-TLS node refuses: NoHostAvailableError", async () => {
  let caught: unknown;
  try {
    await releaseOf({ contactPoints: [settings.mtlsHost], sslOptions: { ca: [settings.mtlsCa] }, socketOptions: { connectTimeout: 4000 } });
  } catch (e) {
    caught = e;
  }
  assertExact(caught instanceof cassandra.errors.NoHostAvailableError, true, `got ${caught}`);
});

Deno.test("compat secure: a custom AuthProvider (SASL PLAIN in JavaScript) authenticates against the auth cluster", async () => {
  class JsPlain extends cassandra.auth.AuthProvider {
    override newAuthenticator() {
      return new (class extends cassandra.auth.Authenticator {
        override initialResponse(cb: (e: Error | null, t?: Uint8Array) => void) {
          Promise.resolve().then(() => cb(null, new TextEncoder().encode("\0cassandra\0cassandra")));
        }
      })();
    }
  }
  const release = await releaseOf({ contactPoints: [settings.authHost], authProvider: new JsPlain() });
  assertExact(/^5\.0\./.test(release), true, `release ${release}`);
});
