/**
 * SASL authenticators written in JavaScript (the DataStax driver's `AuthProvider` and
 * `Authenticator`), bridged to the core: the core hands each step of a connection's exchange
 * over as an event and waits, under its handshake deadline, for the answer given here.
 */

/** The answer to one step: the token, or the authenticator's error. */
export type SaslCallback = (err: Error | null, token?: Uint8Array | null) => void;

/** One connection's SASL exchange; the methods answer through the callback or a promise. */
export interface SaslAuthenticator {
  initialResponse(callback: SaslCallback): void | Promise<Uint8Array | null | undefined>;
  evaluateChallenge(challenge: Uint8Array | null, callback: SaslCallback): void | Promise<Uint8Array | null | undefined>;
  onAuthenticationSuccess?(token?: Uint8Array | null): void;
}

/** Makes an authenticator per connection, given `host:port` and the server's authenticator class. */
export interface SaslAuthProvider {
  newAuthenticator(endpoint: string, authenticatorClass: string): SaslAuthenticator;
}

/** A step as the core reports it. */
export interface SaslStep {
  address: string;
  step: "start" | "challenge" | "success";
  authenticatorClass: string | null;
  token: number[] | null;
}

export type SaslAnswer = (conn: number, token: Uint8Array | null, error: string | null) => void;

/** The authenticators of the connections in their handshake, by connection id. */
export class SaslBridge {
  private readonly authenticators = new Map<number, SaslAuthenticator>();

  constructor(private readonly provider: SaslAuthProvider, private readonly answer: SaslAnswer) {}

  onStep(conn: number, s: SaslStep): void {
    const token = s.token === null ? null : Uint8Array.from(s.token);
    if (s.step === "start") {
      this.run(conn, (cb) => {
        const auth = this.provider.newAuthenticator(s.address, s.authenticatorClass ?? "");
        this.authenticators.set(conn, auth);
        return auth.initialResponse(cb);
      });
    } else if (s.step === "challenge") {
      const auth = this.authenticators.get(conn);
      if (auth === undefined) return this.answer(conn, null, "a challenge came before the initial response");
      this.run(conn, (cb) => auth.evaluateChallenge(token, cb));
    } else {
      const auth = this.authenticators.get(conn);
      this.authenticators.delete(conn);
      // The connection is authenticated already: a throwing hook must not undo that.
      try {
        auth?.onAuthenticationSuccess?.(token);
      } catch {
        // Nothing to answer; the user's hook failed on its own.
      }
    }
  }

  /** The connection is gone: forget its authenticator. */
  forget(conn: number): void {
    this.authenticators.delete(conn);
  }

  /** Runs one step; the first of its callback, its promise or its throw answers, once. */
  private run(conn: number, step: (cb: SaslCallback) => unknown): void {
    let answered = false;
    const once: SaslCallback = (err, token) => {
      if (answered) return;
      answered = true;
      if (err) this.answer(conn, null, errorText(err));
      else this.answer(conn, token ?? new Uint8Array(0), null);
    };
    try {
      const result = step(once);
      if (result !== null && typeof result === "object" && typeof (result as Promise<unknown>).then === "function") {
        (result as Promise<Uint8Array | null | undefined>).then((t) => once(null, t), (e) => once(e instanceof Error ? e : new Error(String(e))));
      }
    } catch (e) {
      once(e instanceof Error ? e : new Error(String(e)));
    }
  }
}

function errorText(e: Error): string {
  return `${e.name}: ${e.message}`;
}
