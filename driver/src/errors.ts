/**
 * Error classes, each with a stable `code`. Server errors keep every field the protocol
 * defines for their code. No error message ever includes a password.
 */
export class DriverError extends Error {
  code: string;
  constructor(message: string, code = "ERR_DRIVER", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DriverError";
    this.code = code;
  }
}

/** The server answered with an ERROR: `code` is the protocol's number. */
export class ResponseError extends Error {
  code: number;
  /** The protocol's name for the code, e.g. `Unavailable`, `WriteTimeout`. */
  codeName: string;
  [field: string]: unknown;
  constructor(fields: { code: number; name: string; message: string; [k: string]: unknown }, host?: string) {
    super(`${fields.name} (0x${fields.code.toString(16).padStart(4, "0")})${host ? ` from ${host}` : ""}: ${fields.message}`);
    // The server's own text stays in `serverMessage`; `message` keeps the name, code and host.
    const { message: serverMessage, ...rest } = fields;
    Object.assign(this, rest, { serverMessage });
    this.name = "ResponseError";
    this.code = fields.code;
    this.codeName = fields.name;
  }
}

export class OperationTimedOutError extends DriverError {
  host?: string;
  constructor(message: string, host?: string) {
    super(message, "ERR_TIMEOUT");
    this.name = "OperationTimedOutError";
    this.host = host;
  }
}

export class ConnectionError extends DriverError {
  host?: string;
  constructor(message: string, host?: string, code = "ERR_CONNECTION", options?: { cause?: unknown }) {
    super(message, code, options);
    this.name = "ConnectionError";
    this.host = host;
  }
}

/** The bytes on the wire broke the protocol; `side` says who broke it. */
export class CqlWireProtocolError extends ConnectionError {
  side: "local" | "remote";
  field: string;
  offset: number;
  constructor(message: string, side: "local" | "remote", field: string, offset: number, host?: string) {
    super(message, host, "ERR_PROTOCOL");
    this.name = "CqlWireProtocolError";
    this.side = side;
    this.field = field;
    this.offset = offset;
  }
}

export class AuthenticationError extends DriverError {
  host?: string;
  constructor(message: string, host?: string) {
    super(message, "ERR_AUTH");
    this.name = "AuthenticationError";
    this.host = host;
  }
}

export class NoHostAvailableError extends DriverError {
  innerErrors: Record<string, Error>;
  constructor(innerErrors: Record<string, Error>, message?: string) {
    const detail = Object.entries(innerErrors).map(([h, e]) => `${h}: ${e.message}`).join("; ");
    super(message ?? `All host(s) tried for query failed: ${detail || "no host available"}`, "ERR_NO_HOST");
    this.name = "NoHostAvailableError";
    this.innerErrors = innerErrors;
  }
}

export class ArgumentError extends DriverError {
  constructor(message: string) {
    super(message, "ERR_ARGUMENT");
    this.name = "ArgumentError";
  }
}

/** Builds the JS error for a core `Failed`/`Closed` JSON payload. */
export function errorFromCore(json: Record<string, unknown>, host: string): Error {
  const kind = json.kind as string;
  const message = String(json.message ?? "unknown error");
  switch (kind) {
    case "server":
      return new ResponseError(json as { code: number; name: string; message: string }, host);
    case "timeout":
      return new OperationTimedOutError(`${message} (host ${host})`, host);
    case "protocol":
      return new CqlWireProtocolError(`${message} (host ${host})`, json.side as "local" | "remote", String(json.field), Number(json.offset), host);
    case "auth":
      return new AuthenticationError(`${message} (host ${host})`, host);
    case "handshake": {
      const inner = json.error as { code: number; name: string; message: string } | undefined;
      return inner ? new ResponseError(inner, host) : new ConnectionError(`${message} (host ${host})`, host);
    }
    default:
      return new ConnectionError(`${message} (host ${host})`, host);
  }
}
