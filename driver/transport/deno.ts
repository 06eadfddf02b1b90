/** Sockets on Deno: `Deno.connect` / `Deno.connectTls` / `Deno.startTls`. */
import type { CqlSocket, SocketFactory, SocketHandlers, SocketTarget, TlsSettings } from "../src/socket.ts";
import { describeTlsFailure } from "./tls_failure.ts";

export const denoSocketFactory: SocketFactory = async (target: SocketTarget, handlers: SocketHandlers): Promise<CqlSocket> => {
  const conn: Deno.Conn = target.tls
    ? await openTls(target, target.tls)
    : await Deno.connect({ hostname: target.host, port: target.port, transport: "tcp" });
  if (!target.tls) (conn as Deno.TcpConn).setNoDelay(true);
  let closed = false;
  const finish = (error?: Error) => {
    if (closed) return;
    closed = true;
    try {
      conn.close();
    } catch {
      // Already closed by the peer.
    }
    handlers.onClose(error);
  };
  (async () => {
    const buf = new Uint8Array(256 * 1024);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) return finish();
        handlers.onData(buf.subarray(0, n));
      }
    } catch (e) {
      finish(closed ? undefined : (e as Error));
    }
  })();
  return {
    async write(data: Uint8Array): Promise<void> {
      let off = 0;
      while (off < data.length) off += await conn.write(data.subarray(off));
    },
    close(): void {
      finish();
    },
  };
};

/**
 * Deno checks the certificate against the name it is given, so an explicit `serverName`
 * needs a plain TCP connection upgraded with that name. `rejectUnauthorized: false` can only
 * turn off the name check here: Deno has no per-connection switch for the chain (only the
 * process-wide `--unsafely-ignore-certificate-errors`), so the CA must still be trusted.
 * The handshake runs before the socket is handed over; otherwise Deno would report a
 * rejected certificate only on the first read, as a connection that merely closed.
 */
async function openTls(target: SocketTarget, tls: TlsSettings): Promise<Deno.TlsConn> {
  const verifiedName = tls.serverName ?? target.host;
  const options = {
    caCerts: tls.ca ? [tls.ca] : undefined,
    unsafelyDisableHostnameVerification: tls.rejectUnauthorized === false,
  };
  const conn = verifiedName === target.host
    ? await Deno.connectTls({ hostname: target.host, port: target.port, ...options })
    : await Deno.startTls(await Deno.connect({ hostname: target.host, port: target.port, transport: "tcp" }), { hostname: verifiedName, ...options });
  try {
    await conn.handshake();
  } catch (e) {
    try {
      conn.close();
    } catch {
      // The failed handshake closed it already.
    }
    throw new Error(describeTlsFailure(target, verifiedName, (e as Error)?.message ?? String(e)), { cause: e });
  }
  return conn;
}

export function denoUnrefTimer(handle: unknown): void {
  if (typeof handle === "number") Deno.unrefTimer(handle);
}
