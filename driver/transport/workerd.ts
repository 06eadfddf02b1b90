/** Sockets on Cloudflare Workers (workerd): `connect` from `cloudflare:sockets`. */
// @ts-ignore: the module exists only inside workerd.
import { connect } from "cloudflare:sockets";
import type { CqlSocket, SocketFactory, SocketHandlers, SocketTarget } from "../src/socket.ts";

interface WorkerSocket {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  opened: Promise<unknown>;
  closed: Promise<void>;
  close(): Promise<void>;
  startTls(options?: { expectedServerHostname?: string }): WorkerSocket;
}

export const workerdSocketFactory: SocketFactory = async (target: SocketTarget, handlers: SocketHandlers): Promise<CqlSocket> => {
  if (target.tls?.ca) {
    throw new Error("custom CA certificates are not supported by cloudflare:sockets; use a publicly trusted certificate");
  }
  if (target.tls && target.tls.rejectUnauthorized === false) {
    throw new Error("cloudflare:sockets always verifies certificates; tls.rejectUnauthorized=false is not available on workerd");
  }
  const socket: WorkerSocket = connect(
    { hostname: target.host, port: target.port },
    { secureTransport: target.tls ? "on" : "off", allowHalfOpen: false },
  );
  await socket.opened;
  const writer = socket.writable.getWriter();
  const reader = socket.readable.getReader();
  let closed = false;
  const finish = (error?: Error) => {
    if (closed) return;
    closed = true;
    socket.close().catch(() => {});
    handlers.onClose(error);
  };
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return finish();
        if (value && value.length) handlers.onData(value);
      }
    } catch (e) {
      finish(closed ? undefined : (e as Error));
    }
  })();
  return {
    write(data: Uint8Array): Promise<void> {
      return writer.write(data);
    },
    close(): void {
      finish();
    },
  };
};
