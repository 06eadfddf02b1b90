/** The shared conformance suite on Deno against the built bundle dist/deno.js (not the sources). */
import * as cqlwire from "../../dist/deno.js";
import { conformanceCases } from "./cases.mjs";
import { neutralAssert } from "./neutral.mjs";

const HOSTS = (Deno.env.get("CQLWIRE_HOSTS") ?? "127.0.0.1:9042").split(",");

Deno.test(`Cassandra is reachable at ${HOSTS[0]} (no silent skips)`, async () => {
  const [hostname, port] = HOSTS[0].split(":");
  try {
    (await Deno.connect({ hostname, port: Number(port ?? 9042) })).close();
  } catch (e) {
    throw new Error(`Cassandra is not reachable at ${HOSTS[0]} (start it with scripts/cassandra start): ${(e as Error).message}`);
  }
});

const { Client, types } = cqlwire;
for (const c of conformanceCases({ Client, types, errors: cqlwire }, neutralAssert, { contactPoints: HOSTS, keyspace: Deno.env.get("CQLWIRE_CONFORMANCE_KEYSPACE") ?? "cqlwire_denodist_it" })) {
  Deno.test(`conformance (deno, dist/deno.js): ${c.name}`, c.run);
}
