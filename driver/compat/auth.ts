/** `auth`: the DataStax driver's authenticator providers, mapped onto cqlwire's credentials. */
import { NotSupportedError } from "../src/errors.ts";

export class AuthProvider {
  /** The username and password the core's SASL PLAIN exchange sends. */
  credentials(): { username: string; password: string } | undefined {
    throw new NotSupportedError("custom SASL authenticators are not supported yet: use PlainTextAuthProvider or credentials");
  }

  newAuthenticator(_endpoint: string, _name: string): never {
    throw new NotSupportedError("custom SASL authenticators are not supported yet");
  }
}

export class PlainTextAuthProvider extends AuthProvider {
  constructor(private readonly username: string, private readonly password: string) {
    super();
  }

  override credentials(): { username: string; password: string } {
    return { username: this.username, password: this.password };
  }
}

/** DSE's provider: plain SASL against Cassandra too. */
export class DsePlainTextAuthProvider extends PlainTextAuthProvider {}

export const auth = { AuthProvider, PlainTextAuthProvider, DsePlainTextAuthProvider };
