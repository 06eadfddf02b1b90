/** Sockets on Node.js: `node:net` / `node:tls`. */
import * as net from "node:net";
import * as tls from "node:tls";
import type { CqlSocket, ShardPort, SocketFactory, SocketHandlers, SocketTarget } from "../src/socket.ts";
import { describeTlsFailure } from "./tls_failure.ts";

/** Local ports for Scylla's shard-aware port come from the IANA ephemeral range. */
const LOCAL_PORT_LOW = 49152;
const LOCAL_PORT_HIGH = 65535;
/** Ports of the wanted residue tried before giving up on one connection. */
const LOCAL_PORT_TRIES = 16;

/** Errors that mean "this local port is taken": try the next one of the same residue. */
const PORT_TAKEN = new Set(["EADDRINUSE", "EADDRNOTAVAIL"]);

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

export const nodeSocketFactory: SocketFactory = async (target: SocketTarget, handlers: SocketHandlers): Promise<CqlSocket> => {
  if (!target.shard) return connectOnce(target, handlers);
  let last: unknown;
  for (const localPort of localPortsForShard(target.shard)) {
    try {
      return await connectOnce(target, handlers, localPort);
    } catch (e) {
      if (!PORT_TAKEN.has((e as { code?: string }).code ?? "")) throw e;
      last = e;
    }
  }
  throw new Error(`no free local port for shard ${target.shard.shard} of ${target.shard.nrShards} after ${LOCAL_PORT_TRIES} tries`, { cause: last });
};

function connectOnce(target: SocketTarget, handlers: SocketHandlers, localPort?: number): Promise<CqlSocket> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const verifiedName = target.tls?.serverName ?? target.host;
    const socket: net.Socket = target.tls
      ? tls.connect({
        host: target.host,
        port: target.port,
        localPort,
        ca: target.tls.ca,
        rejectUnauthorized: target.tls.rejectUnauthorized !== false,
        // SNI carries names only, never IP literals.
        servername: net.isIP(verifiedName) ? undefined : verifiedName,
        // Node checks the name it would send as SNI; an IP literal must be checked too.
        checkServerIdentity: (_host, cert) => tls.checkServerIdentity(verifiedName, cert),
      })
      : net.connect({ host: target.host, port: target.port, localPort, noDelay: true });
    let tcpConnected = false;
    if (target.tls) {
      socket.setNoDelay(true);
      socket.once("connect", () => (tcpConnected = true));
    }
    const ready = target.tls ? "secureConnect" : "connect";
    socket.once(ready, () => {
      settled = true;
      resolve({
        write(data: Uint8Array): void | Promise<void> {
          if (socket.write(data)) return;
          // The kernel buffer is full: let frames pile up in the core until it drains.
          return new Promise((res) => socket.once("drain", () => res()));
        },
        close(): void {
          socket.destroy();
        },
      });
    });
    socket.on("data", (chunk: Uint8Array) => handlers.onData(chunk));
    let closedWith: Error | undefined;
    socket.on("error", (e: Error & { code?: string }) => {
      closedWith = e;
      if (settled) return;
      settled = true;
      reject(tcpConnected ? new Error(describeTlsFailure(target, verifiedName, `${e.code ? `${e.code}: ` : ""}${e.message}`), { cause: e }) : e);
    });
    socket.on("close", () => {
      if (settled) return handlers.onClose(closedWith);
      settled = true;
      reject(new Error(`${target.host}:${target.port} closed the connection before it was established`));
    });
  });
}

export function nodeUnrefTimer(handle: unknown): void {
  (handle as { unref?: () => void })?.unref?.();
}
