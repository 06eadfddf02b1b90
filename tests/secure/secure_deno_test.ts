/** TLS and auth on Deno, against the built bundle dist/deno.js. */
import * as cqlwire from "../../dist/deno.js";
import { neutralAssert } from "../conformance/neutral.mjs";
import { secureCases } from "./cases.mjs";
import { requireServers } from "./settings.mjs";
import { denoSecureSettings } from "./deno_settings.ts";

/** The wrong-host stand-in on Deno's own TLS server: decrypts and forwards to plaintext Cassandra. */
async function startWrongHostProxy({ cert, key, upstream }: { cert: string; key: string; upstream: string }) {
  const listener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert, key });
  const [upstreamHost, upstreamPort] = upstream.split(":");
  const open = new Set<Deno.Conn>();
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    try {
      await from.readable.pipeTo(to.writable);
    } catch {
      // Either side went away; closing both below ends the pair.
    }
    for (const c of [from, to]) {
      open.delete(c);
      try {
        c.close();
      } catch {
        // Closed already.
      }
    }
  };
  (async () => {
    for await (const client of listener) {
      // The handshake fails when the driver rejects the certificate: the expected path.
      client.handshake().then(async () => {
        const backend = await Deno.connect({ hostname: upstreamHost, port: Number(upstreamPort) });
        open.add(client).add(backend);
        pipe(client, backend);
        pipe(backend, client);
      }).catch(() => {
        try {
          client.close();
        } catch {
          // Closed already.
        }
      });
    }
  })().catch(() => {});
  return {
    address: `127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    close(): Promise<void> {
      listener.close();
      for (const c of open) {
        try {
          c.close();
        } catch {
          // Closed already.
        }
      }
      return Promise.resolve();
    },
  };
}

const settings = denoSecureSettings(startWrongHostProxy);

Deno.test("secure clusters are reachable (bash tests/secure/clusters.sh start)", () => requireServers(settings));

for (const c of secureCases({ Client: cqlwire.Client, errors: cqlwire }, neutralAssert, settings)) {
  Deno.test(`secure (deno, dist/deno.js): ${c.name}`, c.run);
}
