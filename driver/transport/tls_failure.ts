/** One wording for a failed TLS handshake on every runtime, naming the certificate problem. */
import type { SocketTarget } from "../src/socket.ts";

/** `detail` is the runtime's own message (rustls on Deno, OpenSSL codes on Node). */
export function describeTlsFailure(target: SocketTarget, verifiedName: string, detail: string): string {
  const where = `TLS handshake with ${target.host}:${target.port} failed`;
  if (/UnknownIssuer|SELF_SIGNED|self[- ]signed|UNABLE_TO_(VERIFY_LEAF|GET_ISSUER)|unable to (verify|get)|BadSignature/i.test(detail)) {
    const hint = target.tls?.rejectUnauthorized === false
      ? "trust its CA with tls.ca; on Deno tls.rejectUnauthorized: false skips only the name check"
      : "pass its CA as tls.ca";
    return `${where}: the server's certificate is not signed by a trusted CA (${hint}) [${detail}]`;
  }
  if (/NotValidForName|not valid for name|ALTNAME|does not match certificate/i.test(detail)) {
    return `${where}: the server's certificate is not valid for "${verifiedName}" ` +
      `(connect by a name it carries or set tls.serverName; tls.rejectUnauthorized: false skips the check) [${detail}]`;
  }
  if (/expired|NotValidYet|not yet valid/i.test(detail)) {
    return `${where}: the server's certificate is expired or not yet valid [${detail}]`;
  }
  return `${where}: ${detail}`;
}
