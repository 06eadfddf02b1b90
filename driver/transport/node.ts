/** Sockets on Node.js: `node:net` / `node:tls`. */
import * as net from "node:net";
import * as tls from "node:tls";
import type { CqlSocket, SocketFactory, SocketHandlers, SocketTarget } from "../src/socket.ts";

export const nodeSocketFactory: SocketFactory = (target: SocketTarget, handlers: SocketHandlers): Promise<CqlSocket> =>
  new Promise((resolve, reject) => {
    let settled = false;
    const socket: net.Socket = target.tls
      ? tls.connect({
        host: target.host,
        port: target.port,
        ca: target.tls.ca,
        rejectUnauthorized: target.tls.rejectUnauthorized !== false,
        servername: target.tls.serverName ?? (net.isIP(target.host) ? undefined : target.host),
        // Node skips hostname checks for IP literals unless told which identity to expect.
        checkServerIdentity: (host, cert) => tls.checkServerIdentity(target.tls?.serverName ?? target.host ?? host, cert),
      })
      : net.connect({ host: target.host, port: target.port, noDelay: true });
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
    socket.on("error", (e) => {
      closedWith = e;
      if (!settled) {
        settled = true;
        reject(e);
      }
    });
    socket.on("close", () => {
      if (settled) handlers.onClose(closedWith);
    });
  });

export function nodeUnrefTimer(handle: unknown): void {
  (handle as { unref?: () => void })?.unref?.();
}
