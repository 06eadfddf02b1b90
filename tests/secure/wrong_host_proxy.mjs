/**
 * For the Node runner: a TLS-terminating proxy that presents the `wrong-host` certificate (issued for
 * wrong.example by the test CA, the one `scripts/cassandra --tls-wrong-host` serves) and
 * forwards the decrypted stream to a plaintext Cassandra. It stands in for a wrong-host
 * cluster without a third JVM. (The Deno runner has the same on Deno.listenTls.)
 */
import net from "node:net";
import tls from "node:tls";

export async function startWrongHostProxy({ cert, key, upstream }) {
  const [upstreamHost, upstreamPort] = upstream.split(":");
  const sockets = new Set();
  const track = (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
    return s;
  };
  const server = tls.createServer({ cert, key }, (client) => {
    track(client);
    const backend = track(net.connect({ host: upstreamHost, port: Number(upstreamPort) }));
    client.pipe(backend);
    backend.pipe(client);
    client.on("close", () => backend.destroy());
    backend.on("close", () => client.destroy());
  });
  // A client that rejects the certificate aborts the handshake; that is the expected path.
  server.on("tlsClientError", () => {});
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    address: `127.0.0.1:${server.address().port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
