/** Sockets on Node.js: `node:net` / `node:tls`. */
import * as net from "node:net";
import type * as NodeTls from "node:tls";
import type { CqlSocket, SocketFactory, SocketHandlers, SocketTarget } from "../src/socket.ts";
import { LOCAL_PORT_TRIES, localPortsForShard, PORT_TAKEN } from "../src/shard_ports.ts";
import { describeTlsFailure } from "./tls_failure.ts";

/**
 * `node:tls`, loaded by the first TLS connection: a client without TLS never pays for it
 * (1.5-3 MB of RSS on Node 20, measured by bench/memory/native.mjs).
 */
let tlsModule: Promise<typeof NodeTls> | null = null;
const loadTls = (): Promise<typeof NodeTls> => (tlsModule ??= import("node:tls"));

export const nodeSocketFactory: SocketFactory = async (target: SocketTarget, handlers: SocketHandlers): Promise<CqlSocket> => {
  const tls = target.tls ? await loadTls() : null;
  if (!target.shard) return connectOnce(tls, target, handlers);
  let last: unknown;
  for (const localPort of localPortsForShard(target.shard)) {
    try {
      return await connectOnce(tls, target, handlers, localPort);
    } catch (e) {
      if (!PORT_TAKEN.has((e as { code?: string }).code ?? "")) throw e;
      last = e;
    }
  }
  throw new Error(`no free local port for shard ${target.shard.shard} of ${target.shard.nrShards} after ${LOCAL_PORT_TRIES} tries`, { cause: last });
};

/** As much as one read takes (Node's own stream reads are 64 KiB). */
const READ_BUFFER_BYTES = 64 * 1024;

/** `tls` is `node:tls` when `target.tls` is set. */
function connectOnce(tls: typeof NodeTls | null, target: SocketTarget, handlers: SocketHandlers, localPort?: number): Promise<CqlSocket> {
  return new Promise((resolve, reject) => {
    let settled = false;
    // Only a socket that was handed out reports its close: a failed attempt (a taken local
    // port) must not close the connection the next attempt establishes with the same handlers.
    let established = false;
    const verifiedName = target.tls?.serverName ?? target.host;
    // tls.connect passes socket.connect() options on (Node's docs), but its typings omit
    // localPort: a typed TCP options object carries it past the literal's property check.
    const tcp: net.TcpNetConnectOpts = { host: target.host, port: target.port, localPort };
    const socket: net.Socket = target.tls && tls
      ? tls.connect({
        ...tcp,
        ca: target.tls.ca,
        cert: target.tls.cert,
        key: target.tls.key,
        rejectUnauthorized: target.tls.rejectUnauthorized !== false,
        // SNI carries names only, never IP literals.
        servername: net.isIP(verifiedName) ? undefined : verifiedName,
        // Node checks the name it would send as SNI; an IP literal must be checked too.
        checkServerIdentity: (_host, cert) => tls.checkServerIdentity(verifiedName, cert),
      })
      : net.connect({
        ...tcp,
        noDelay: true,
        // Reads land in one buffer of this socket's, handed straight to the core (which copies
        // them during the call): no Buffer per read and no stream machinery between.
        onread: {
          buffer: new Uint8Array(READ_BUFFER_BYTES),
          callback: (n: number, buf: Uint8Array) => {
            handlers.onData(buf.subarray(0, n));
            return true;
          },
        },
      });
    let tcpConnected = false;
    if (target.tls) {
      socket.setNoDelay(true);
      socket.once("connect", () => (tcpConnected = true));
    }
    const ready = target.tls ? "secureConnect" : "connect";
    socket.once(ready, () => {
      settled = true;
      established = true;
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
    // TLS has no `onread`: its chunks come as events.
    if (target.tls) socket.on("data", (chunk: Uint8Array) => handlers.onData(chunk));
    let closedWith: Error | undefined;
    socket.on("error", (e: Error & { code?: string }) => {
      closedWith = e;
      if (settled) return;
      settled = true;
      reject(tcpConnected ? new Error(describeTlsFailure(target, verifiedName, `${e.code ? `${e.code}: ` : ""}${e.message}`), { cause: e }) : e);
    });
    socket.on("close", () => {
      if (established) return handlers.onClose(closedWith);
      if (settled) return;
      settled = true;
      reject(new Error(`${target.host}:${target.port} closed the connection before it was established`));
    });
  });
}

export function nodeUnrefTimer(handle: unknown): void {
  (handle as { unref?: () => void })?.unref?.();
}

const RESOLVED = Promise.resolve();

/**
 * Node's `queueMicrotask` wraps every task in an AsyncResource (with a bound function), three
 * times the cost of a reaction to a settled promise; the session queues up to two microtasks
 * per round trip. The driver's tasks never throw (so no rejection can go unhandled).
 */
export function nodeQueueMicrotask(task: () => void): void {
  RESOLVED.then(task);
}
