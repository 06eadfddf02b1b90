/** Sockets on Deno: `Deno.connect`, upgraded with `Deno.startTls` for TLS. */
import type { CqlSocket, SocketFactory, SocketHandlers, SocketTarget, TlsSettings } from "../src/socket.ts";
import { describeTlsFailure } from "./tls_failure.ts";

export const denoSocketFactory: SocketFactory = async (target: SocketTarget, handlers: SocketHandlers): Promise<CqlSocket> => {
  const conn: Deno.Conn = target.tls?.cert !== undefined ? await connectWithClientCert(target, target.tls) : await connectTcp(target);
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
    // Responses of one kind come in reads of one size: their view is made once.
    let chunk = buf.subarray(0, 0);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) return finish();
        if (chunk.length !== n) chunk = buf.subarray(0, n);
        handlers.onData(chunk);
      }
    } catch (e) {
      finish(closed ? undefined : (e as Error));
    }
  })();
  // One write in progress at a time (a partial write's rest must go before anything else).
  // An idle socket's write returns nothing, so a lone request makes no promise of the
  // session's; bytes given during a write wait here, and their promise settles once they
  // are handed to the socket.
  // The bytes of the write in progress (null when none): its handlers are made once, not
  // per write, since with one request in flight every round trip makes a write.
  let writing: Uint8Array | null = null;
  let waiting: { bytes: Uint8Array; promise: Promise<void>; resolve(): void; reject(e: Error): void } | null = null;
  const failed = (e: Error): void => {
    writing = null;
    const waiter = waiting;
    waiting = null;
    waiter?.reject(e);
    finish(closed ? undefined : e);
  };
  /** Writes all of `bytes`, then what waits; throws only in its caller's call (a closed resource). */
  const writeAll = (bytes: Uint8Array): void => {
    writing = bytes;
    conn.write(bytes).then(written, failed);
  };
  /** A write's completion: a partial write's rest goes first; then whatever waits, whose promise settles here. */
  const written = (n: number): void => {
    const bytes = writing!;
    const rest = n < bytes.length ? bytes.subarray(n) : null;
    const waiter = rest === null ? waiting : null;
    if (rest === null) {
      writing = null;
      waiting = null;
      if (waiter === null) return;
    }
    try {
      writeAll(rest ?? waiter!.bytes);
    } catch (e) {
      waiter?.reject(e as Error);
      failed(e as Error);
      return;
    }
    waiter?.resolve();
  };
  return {
    write(data: Uint8Array): void | Promise<void> {
      if (writing === null) return writeAll(data);
      // The session gives nothing more until this settles; another caller's bytes join it.
      if (waiting !== null) {
        waiting.bytes = concatBytes(waiting.bytes, data);
        return waiting.promise;
      }
      let resolve!: () => void;
      let reject!: (e: Error) => void;
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      waiting = { bytes: data, promise, resolve, reject };
      return promise;
    },
    close(): void {
      finish();
    },
  };
};

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

async function connectTcp(target: SocketTarget): Promise<Deno.Conn> {
  const tcp = await Deno.connect({ hostname: target.host, port: target.port, transport: "tcp" });
  tcp.setNoDelay(true);
  return target.tls ? await upgradeToTls(tcp, target, target.tls) : tcp;
}

/**
 * Mutual TLS: only `Deno.connectTls` takes a client certificate (`startTls` does not), so the
 * TCP socket is Deno's own here, with its default Nagle setting.
 */
async function connectWithClientCert(target: SocketTarget, tls: TlsSettings): Promise<Deno.TlsConn> {
  const verifiedName = tls.serverName ?? target.host;
  if (verifiedName !== target.host) {
    // connectTls checks the certificate against the name it connects to: no other name.
    throw new Error(`on Deno a client certificate cannot go with tls.serverName "${verifiedName}" (other than the host ${target.host})`);
  }
  let conn: Deno.TlsConn | undefined;
  try {
    conn = await Deno.connectTls({
      hostname: target.host,
      port: target.port,
      caCerts: tls.ca ? [tls.ca] : undefined,
      unsafelyDisableHostnameVerification: tls.rejectUnauthorized === false,
      cert: tls.cert!,
      key: tls.key!,
    });
    await conn.handshake();
    return conn;
  } catch (e) {
    try {
      conn?.close();
    } catch {
      // The failed handshake closed it already.
    }
    throw new Error(describeTlsFailure(target, verifiedName, (e as Error)?.message ?? String(e)), { cause: e });
  }
}

/**
 * TLS over an already connected TCP socket (so it keeps TCP_NODELAY), checked against
 * `serverName` when given, else the host connected to (an IP needs an IP SAN).
 * `rejectUnauthorized: false` can only turn off the name check here: Deno has no
 * per-connection switch for the chain (only the process-wide
 * `--unsafely-ignore-certificate-errors`), so the CA must still be trusted.
 * The handshake runs before the socket is handed over; otherwise Deno would report a
 * rejected certificate only on the first read, as a connection that merely closed.
 */
async function upgradeToTls(tcp: Deno.TcpConn, target: SocketTarget, tls: TlsSettings): Promise<Deno.TlsConn> {
  const verifiedName = tls.serverName ?? target.host;
  let conn: Deno.TlsConn | undefined;
  try {
    conn = await Deno.startTls(tcp, {
      hostname: verifiedName,
      caCerts: tls.ca ? [tls.ca] : undefined,
      unsafelyDisableHostnameVerification: tls.rejectUnauthorized === false,
    });
    await conn.handshake();
    return conn;
  } catch (e) {
    try {
      (conn ?? tcp).close();
    } catch {
      // The failed handshake closed it already.
    }
    throw new Error(describeTlsFailure(target, verifiedName, (e as Error)?.message ?? String(e)), { cause: e });
  }
}

export function denoUnrefTimer(handle: unknown): void {
  if (typeof handle === "number") Deno.unrefTimer(handle);
}
