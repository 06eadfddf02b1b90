/**
 * Local ports for connections to Scylla's shard-aware port, where the source port modulo the
 * node's shard count picks the shard. Used by transports that can bind a local port (Node).
 */
import type { ShardPort } from "./socket.ts";

/** Local ports for Scylla's shard-aware port come from the IANA ephemeral range. */
const LOCAL_PORT_LOW = 49152;
const LOCAL_PORT_HIGH = 65535;
/** Ports of the wanted residue tried before giving up on one connection. */
export const LOCAL_PORT_TRIES = 16;

/** Errors that mean "this local port is taken": try the next one of the same residue. */
export const PORT_TAKEN = new Set(["EADDRINUSE", "EADDRNOTAVAIL"]);

/**
 * Up to `LOCAL_PORT_TRIES` ports `p` in the ephemeral range with `p % nrShards === shard`,
 * from a random start so concurrent connections rarely race for the same one.
 */
export function localPortsForShard({ shard, nrShards }: ShardPort, random = Math.random): number[] {
  const first = LOCAL_PORT_LOW + ((shard - (LOCAL_PORT_LOW % nrShards)) % nrShards + nrShards) % nrShards;
  const count = Math.floor((LOCAL_PORT_HIGH - first) / nrShards) + 1;
  const start = Math.floor(random() * count);
  const ports: number[] = [];
  for (let i = 0; i < Math.min(LOCAL_PORT_TRIES, count); i++) ports.push(first + ((start + i) % count) * nrShards);
  return ports;
}

