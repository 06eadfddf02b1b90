/**
 * TLS and authentication cases, written once and run on Deno (dist/deno.js) and Node
 * (dist/node.js) against the separate clusters `tests/secure/clusters.sh start` brings up:
 * a TLS-only node on 127.0.0.11, a PasswordAuthenticator node on 127.0.0.21 and a node on
 * 127.0.0.31 that requires a client certificate (mutual TLS).
 *
 *   secureCases({ Client, errors }, assert, settings) -> [{ name, run }]
 *
 * settings (see settings.mjs): { runtime: "deno" | "node", tlsHost, authHost, plainHost, ca,
 *   wrongHost: { cert, key }, startWrongHostProxy({ cert, key, upstream }) -> { address, close },
 *   inspect(value) -> string }
 */

const RELEASE = /^5\.0\.\d+/;

export function secureCases(driver, assert, settings) {
  const { Client, errors } = driver;
  const { AuthenticationError, NoHostAvailableError } = errors;
  const { tlsHost, authHost, ca, mtlsHost, mtlsCa, mtlsClient } = settings;

  /** SASL PLAIN written as a JavaScript authenticator: the core waits for its async answers. */
  const jsPlain = (username, password, seen) => ({
    newAuthenticator(endpoint, authenticatorClass) {
      seen.push([endpoint, authenticatorClass]);
      return {
        initialResponse: (callback) => setTimeout(() => callback(null, new TextEncoder().encode(`\0${username}\0${password}`)), 1),
        evaluateChallenge: (_challenge, callback) => callback(new Error("PLAIN expects no challenge")),
        onAuthenticationSuccess: () => seen.push(["success"]),
      };
    },
  });

  async function release(options) {
    const client = new Client({ localDataCenter: "datacenter1", ...options });
    try {
      const rs = await client.execute("SELECT release_version FROM system.local");
      return rs.first()?.release_version;
    } finally {
      await client.shutdown();
    }
  }

  /** Connecting must be refused (not run into the connect timeout); returns the error. */
  async function refused(options, what) {
    const client = new Client({ localDataCenter: "datacenter1", socketOptions: { connectTimeout: 4000 }, ...options });
    let caught;
    try {
      await client.connect();
    } catch (e) {
      caught = e;
    } finally {
      await client.shutdown();
    }
    assert.ok(caught, `${what}: connected, but it should have been refused`);
    // A timeout names its deadline ("within 4000 ms"); a refusal never does.
    assert.ok(!/within \d+ ms/.test(caught.message), `${what}: failed by the connect timeout, not a refusal: ${caught.message}`);
    return caught;
  }

  function expectTlsError(e, pattern, what) {
    assert.ok(e instanceof NoHostAvailableError, `${what}: expected NoHostAvailableError, got ${e?.name}: ${e?.message}`);
    assert.ok(/TLS handshake with \S+ failed/.test(e.message), `${what}: the error does not say the TLS handshake failed: ${e.message}`);
    assert.ok(pattern.test(e.message), `${what}: the error does not name the certificate problem (${pattern}): ${e.message}`);
  }

  async function viaWrongHostProxy(body) {
    const proxy = await settings.startWrongHostProxy({ ...settings.wrongHost, upstream: settings.plainHost });
    try {
      return await body(proxy.address);
    } finally {
      await proxy.close();
    }
  }

  return [
    {
      name: "TLS: with the cluster's CA the driver connects and queries (by IP, which the certificate names)",
      run: async () => {
        const r = await release({ contactPoints: [tlsHost], tls: { ca } });
        assert.ok(RELEASE.test(String(r)), `release_version ${r}`);
      },
    },
    {
      name: "TLS: verification is on by default, so without the CA the connection is refused as untrusted",
      run: async () => {
        const e = await refused({ contactPoints: [tlsHost], tls: {} }, "no CA");
        expectTlsError(e, /not signed by a trusted CA/, "no CA");
      },
    },
    {
      name: "TLS: a plaintext client against the TLS-only port fails fast instead of hanging",
      run: async () => {
        const e = await refused({ contactPoints: [tlsHost] }, "plaintext to TLS");
        assert.ok(e instanceof NoHostAvailableError, `expected NoHostAvailableError, got ${e?.name}: ${e?.message}`);
      },
    },
    {
      name: "TLS hostname check: a certificate that does not name the expected server (serverName wrong.example) is refused",
      run: async () => {
        const e = await refused({ contactPoints: [tlsHost], tls: { ca, serverName: "wrong.example" } }, "serverName not in the certificate");
        expectTlsError(e, /not valid for "wrong\.example"/, "serverName not in the certificate");
      },
    },
    {
      name: "TLS hostname check: serverName set to a name the certificate carries (localhost) connects",
      run: async () => {
        const r = await release({ contactPoints: [tlsHost], tls: { ca, serverName: "localhost" } });
        assert.ok(RELEASE.test(String(r)), `release_version ${r}`);
      },
    },
    {
      name: "TLS hostname check: the wrong-host certificate (valid chain, issued for wrong.example) is refused when connecting by IP",
      run: () =>
        viaWrongHostProxy(async (address) => {
          const e = await refused({ contactPoints: [address], tls: { ca }, discoverPeers: false }, "wrong-host certificate");
          expectTlsError(e, /not valid for "127\.0\.0\.1"/, "wrong-host certificate");
        }),
    },
    {
      name: "TLS: rejectUnauthorized: false is an explicit opt-in that connects to the wrong-host server",
      run: () =>
        viaWrongHostProxy(async (address) => {
          const r = await release({ contactPoints: [address], tls: { ca, rejectUnauthorized: false }, discoverPeers: false });
          assert.ok(RELEASE.test(String(r)), `release_version ${r}`);
        }),
    },
    {
      name: "TLS: rejectUnauthorized: false without the CA (Node: connects; Deno: only the name check can be skipped, so it names the untrusted chain)",
      run: async () => {
        const options = { contactPoints: [tlsHost], tls: { rejectUnauthorized: false } };
        if (settings.runtime === "deno") {
          const e = await refused(options, "no CA, rejectUnauthorized false, on Deno");
          expectTlsError(e, /not signed by a trusted CA.*rejectUnauthorized: false skips only the name check/, "no CA, rejectUnauthorized false, on Deno");
        } else {
          const r = await release(options);
          assert.ok(RELEASE.test(String(r)), `release_version ${r}`);
        }
      },
    },
    {
      name: "auth: the right credentials work",
      run: async () => {
        const r = await release({ contactPoints: [authHost], credentials: { username: "cassandra", password: "cassandra" } });
        assert.ok(RELEASE.test(String(r)), `release_version ${r}`);
      },
    },
    {
      name: "auth: a wrong password fails fast with AuthenticationError, and the password appears nowhere in the error",
      run: async () => {
        const password = `wrong-${Math.random().toString(36).slice(2)}-Pa55word`;
        const e = await refused({ contactPoints: [authHost], credentials: { username: "cassandra", password } }, "wrong password");
        assert.ok(e instanceof AuthenticationError, `expected AuthenticationError, got ${e?.name}: ${e?.message}`);
        assert.ok(/username cassandra and\/or password are incorrect/.test(e.message), `the message does not say the credentials were refused: ${e.message}`);
        assert.ok(e.message.includes(authHost), `the message does not name the host: ${e.message}`);
        for (const [where, text] of renderings(e, settings.inspect)) {
          assert.ok(!text.includes(password), `the password appears in ${where}: ${text}`);
        }
      },
    },
    {
      name: "auth: the wrong password through execute() (not connect()) is the same AuthenticationError without the password",
      run: async () => {
        const password = `exec-${Math.random().toString(36).slice(2)}`;
        const client = new Client({ contactPoints: [authHost], localDataCenter: "datacenter1", credentials: { username: "cassandra", password } });
        let caught;
        try {
          await client.execute("SELECT release_version FROM system.local");
        } catch (e) {
          caught = e;
        } finally {
          await client.shutdown();
        }
        assert.ok(caught instanceof AuthenticationError, `expected AuthenticationError, got ${caught?.name}: ${caught?.message}`);
        for (const [where, text] of renderings(caught, settings.inspect)) {
          assert.ok(!text.includes(password), `the password appears in ${where}`);
        }
      },
    },
    {
      name: "auth: a JavaScript SASL authProvider answers the real PasswordAuthenticator and queries",
      run: async () => {
        const seen = [];
        const r = await release({ contactPoints: [authHost], authProvider: jsPlain("cassandra", "cassandra", seen), discoverPeers: false });
        assert.ok(RELEASE.test(String(r)), `release_version ${r}`);
        assert.equal(seen.slice(0, 2), [[authHost, "org.apache.cassandra.auth.PasswordAuthenticator"], ["success"]]);
      },
    },
    {
      name: "auth: a JavaScript SASL authProvider with a wrong password is the server's AuthenticationError",
      run: async () => {
        const e = await refused({ contactPoints: [authHost], authProvider: jsPlain("cassandra", "wrong-password", []) }, "JS authenticator, wrong password");
        const inner = e instanceof NoHostAvailableError ? Object.values(e.innerErrors)[0] : e;
        assert.ok(inner instanceof AuthenticationError, `expected AuthenticationError, got ${inner?.name}: ${inner?.message}`);
        assert.ok(/username cassandra and\/or password are incorrect/.test(inner.message), inner.message);
      },
    },
    {
      name: "mutual TLS: with the client certificate and key the driver connects and queries",
      run: async () => {
        const r = await release({ contactPoints: [mtlsHost], tls: { ca: mtlsCa, cert: mtlsClient.cert, key: mtlsClient.key } });
        assert.ok(RELEASE.test(String(r)), `release_version ${r}`);
      },
    },
    {
      name: "mutual TLS: without a client certificate the node refuses the connection (NoHostAvailableError, not a timeout)",
      run: async () => {
        const e = await refused({ contactPoints: [mtlsHost], tls: { ca: mtlsCa } }, "no client certificate");
        assert.ok(e instanceof NoHostAvailableError, `expected NoHostAvailableError, got ${e?.name}: ${e?.message}`);
        assert.equal(Object.keys(e.innerErrors), [mtlsHost]);
      },
    },
    {
      name: "mutual TLS: cert without key is an ArgumentError before any connection",
      run: async () => {
        let caught;
        try {
          new Client({ contactPoints: [mtlsHost], tls: { ca: mtlsCa, cert: mtlsClient.cert } });
        } catch (e) {
          caught = e;
        }
        assert.ok(caught instanceof errors.ArgumentError && /tls: cert and key go together/.test(caught.message), `got ${caught?.name}: ${caught?.message}`);
      },
    },
    {
      name: "auth: no credentials against a PasswordAuthenticator cluster says credentials are required",
      run: async () => {
        const e = await refused({ contactPoints: [authHost] }, "no credentials");
        assert.ok(e instanceof AuthenticationError, `expected AuthenticationError, got ${e?.name}: ${e?.message}`);
        assert.ok(/requires authentication/.test(e.message), e.message);
      },
    },
  ];
}

/** Every way an error is commonly shown, following `cause` and `innerErrors`. */
function renderings(error, inspect) {
  const out = [];
  const seen = new Set();
  const visit = (e, path) => {
    if (!e || typeof e !== "object" || seen.has(e)) return;
    seen.add(e);
    out.push([`${path}.message`, String(e.message)]);
    out.push([`String(${path})`, String(e)]);
    out.push([`JSON.stringify(${path})`, JSON.stringify(e) ?? ""]);
    out.push([`${path}.stack`, String(e.stack)]);
    if (inspect) out.push([`inspect(${path})`, inspect(e)]);
    visit(e.cause, `${path}.cause`);
    for (const [host, inner] of Object.entries(e.innerErrors ?? {})) visit(inner, `${path}.innerErrors[${host}]`);
  };
  visit(error, "error");
  return out;
}
