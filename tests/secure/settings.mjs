/**
 * Where the secure suite finds its clusters and certificates (overridable by environment),
 * and the loud failure when they are missing: a secure test never skips silently. No runtime
 * API here; each runner passes in how to read files and open a TCP connection.
 */

/**
 * host: { runtime, root (repository path ending in "/"), env(name), readText(path),
 *         canConnect(host, port) -> Promise<boolean>, inspect(value), startWrongHostProxy }
 */
export function secureSettings(host) {
  const env = (name, fallback) => host.env(name) || fallback;
  const tlsDir = env("CQLWIRE_SECURE_TLS_DIR", `${host.root}.cache/cassandra/secure-tls/tls`);
  const mtlsDir = env("CQLWIRE_SECURE_MTLS_DIR", `${host.root}.cache/cassandra/secure-mtls/tls`);
  const readIn = (dir, file) => {
    try {
      return host.readText(`${dir}/${file}`);
    } catch (e) {
      throw new Error(`${dir}/${file} is missing (run: bash tests/secure/clusters.sh start): ${e.message}`);
    }
  };
  const read = (file) => readIn(tlsDir, file);
  return {
    runtime: host.runtime,
    inspect: host.inspect,
    canConnect: host.canConnect,
    startWrongHostProxy: host.startWrongHostProxy,
    tlsHost: env("CQLWIRE_TLS_HOST", "127.0.0.11:9042"),
    authHost: env("CQLWIRE_AUTH_HOST", "127.0.0.21:9042"),
    /** The node that requires a client certificate, its CA, and a client certificate it accepts. */
    mtlsHost: env("CQLWIRE_MTLS_HOST", "127.0.0.31:9042"),
    mtlsCa: readIn(mtlsDir, "ca.pem"),
    mtlsClient: { cert: readIn(mtlsDir, "client/client.pem"), key: readIn(mtlsDir, "client/client.key") },
    plainHost: env("CQLWIRE_HOSTS", "127.0.0.1:9042").split(",")[0],
    ca: read("ca.pem"),
    wrongHost: { cert: read("wrong-host/server.pem"), key: read("wrong-host/server.key") },
  };
}

/** Rejects, naming each missing server, unless every host accepts a TCP connection. */
export async function requireServers(settings) {
  const missing = [];
  for (const [role, hostPort] of [["TLS cluster", settings.tlsHost], ["auth cluster", settings.authHost], ["mutual-TLS cluster", settings.mtlsHost], ["plaintext cluster", settings.plainHost]]) {
    const [hostname, port] = hostPort.split(":");
    if (!(await settings.canConnect(hostname, Number(port)))) missing.push(`${role} at ${hostPort}`);
  }
  if (missing.length) {
    throw new Error(`not reachable: ${missing.join(", ")} (start them with: bash tests/secure/clusters.sh start; scripts/cassandra start)`);
  }
}
