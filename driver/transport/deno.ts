/** Sockets on Deno: `Deno.connect` / `Deno.connectTls`. */
import type { CqlSocket, SocketFactory, SocketHandlers, SocketTarget } from "../src/socket.ts";

export const denoSocketFactory: SocketFactory = async (target: SocketTarget, handlers: SocketHandlers): Promise<CqlSocket> => {
  const conn: Deno.Conn = target.tls
    ? await Deno.connectTls({
      hostname: target.host,
      port: target.port,
      caCerts: target.tls.ca ? [target.tls.ca] : undefined,
      // Deno verifies against the name it connects to; an explicit serverName wins.
      ...(target.tls.serverName ? { hostname: target.host } : {}),
      ...(target.tls.rejectUnauthorized === false ? { unsafelyDisableHostnameVerification: true } as Record<string, unknown> : {}),
    } as Deno.ConnectTlsOptions)
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

export function denoUnrefTimer(handle: unknown): void {
  if (typeof handle === "number") Deno.unrefTimer(handle);
}
