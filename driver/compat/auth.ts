/**
 * `auth`: the DataStax driver's authenticator providers. `PlainTextAuthProvider` becomes the
 * core's SASL PLAIN (`credentials`); any other provider's `newAuthenticator` runs for each
 * connection, its callbacks answered back into the core's handshake (driver/src/sasl.ts).
 */
import { NotSupportedError } from "../src/errors.ts";
import type { SaslAuthenticator, SaslAuthProvider, SaslCallback } from "../src/sasl.ts";
import { bytesView } from "../src/values/bytes.ts";

type Token = Uint8Array | null | undefined;

/** Bytes as DataStax code expects them: a Buffer where there is one. */
function buffer(token: Token): Token {
  return token ? bytesView(token) : token;
}

/** One connection's exchange; subclasses answer through the callbacks. */
export class Authenticator {
  initialResponse(callback: SaslCallback): void {
    callback(new NotSupportedError("Authenticator.initialResponse is not implemented"));
  }

  evaluateChallenge(_challenge: Token, callback: SaslCallback): void {
    callback(new NotSupportedError("Authenticator.evaluateChallenge is not implemented"));
  }

  onAuthenticationSuccess(_token?: Token): void {}
}

export class AuthProvider {
  newAuthenticator(_endpoint: string, _name: string): Authenticator {
    throw new NotSupportedError("AuthProvider is abstract: implement newAuthenticator(endpoint, name) or use PlainTextAuthProvider");
  }
}

/** SASL PLAIN: `\0username\0password`. */
export class PlainTextAuthenticator extends Authenticator {
  constructor(private readonly username: string, private readonly password: string) {
    super();
  }

  override initialResponse(callback: SaslCallback): void {
    callback(null, buffer(new TextEncoder().encode(`\0${this.username}\0${this.password}`)));
  }

  override evaluateChallenge(_challenge: Token, callback: SaslCallback): void {
    callback(null, new Uint8Array(0));
  }
}

export class PlainTextAuthProvider extends AuthProvider {
  constructor(private readonly username: string, private readonly password: string) {
    super();
  }

  /** The username and password the core's SASL PLAIN exchange sends. */
  credentials(): { username: string; password: string } {
    return { username: this.username, password: this.password };
  }

  override newAuthenticator(): Authenticator {
    return new PlainTextAuthenticator(this.username, this.password);
  }
}

/** DSE's provider: plain SASL against Cassandra too. */
export class DsePlainTextAuthProvider extends PlainTextAuthProvider {}

/**
 * What the core gets for `authProvider`: PLAIN credentials for the built-in providers (as
 * they are, not subclassed), else the provider itself with tokens handed over as Buffers.
 */
export function authOptions(p: unknown): { credentials?: { username: string; password: string }; authProvider?: SaslAuthProvider } {
  if (p === undefined || p === null) return {};
  const proto = Object.getPrototypeOf(p);
  if (proto === PlainTextAuthProvider.prototype || proto === DsePlainTextAuthProvider.prototype) {
    return { credentials: (p as PlainTextAuthProvider).credentials() };
  }
  const provider = p as { newAuthenticator?: (endpoint: string, name: string) => SaslAuthenticator };
  if (typeof provider.newAuthenticator !== "function") {
    throw new NotSupportedError("authProvider: expected an AuthProvider with newAuthenticator(endpoint, name)");
  }
  return {
    authProvider: {
      newAuthenticator(endpoint, name) {
        const a = provider.newAuthenticator!(endpoint, name);
        return {
          initialResponse: (cb) => a.initialResponse(cb),
          evaluateChallenge: (challenge, cb) => a.evaluateChallenge(buffer(challenge) ?? null, cb),
          onAuthenticationSuccess: (token) => a.onAuthenticationSuccess?.(buffer(token)),
        };
      },
    },
  };
}
