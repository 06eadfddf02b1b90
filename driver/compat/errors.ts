/**
 * Errors as the DataStax driver shapes them. cqlwire's own `ResponseError.message` reads
 * "Invalid (0x2200) from host: text"; DataStax's is the server's text alone, with `info`
 * naming a server error and `query` the statement, so code that matches on `err.message`
 * (e.g. "Undefined column name ...") or logs `err.query` sees the same thing on both.
 */
import { DriverError, NoHostAvailableError, ResponseError } from "../src/errors.ts";

const SERVER_INFO = "Represents an error message from the server";

/** Reshapes `e` in place (it belongs to this one request) and returns the error to throw. */
export function dataStaxError(e: unknown, query: unknown): unknown {
  if (e instanceof ResponseError) {
    if (typeof e.serverMessage === "string") e.message = e.serverMessage;
    e.info = SERVER_INFO;
    if (e.query === undefined) e.query = query;
    return e;
  }
  // DataStax: any use of a client after shutdown() fails with this error and text.
  if (e instanceof DriverError && e.code === "ERR_SHUTDOWN") {
    const err = new NoHostAvailableError({}, "Connecting after shutdown is not supported");
    (err as { innerErrors: unknown }).innerErrors = null;
    return err;
  }
  // Encoding errors (TypeError) carry the statement too in DataStax.
  if (e instanceof TypeError && Object.isExtensible(e) && !("query" in e)) {
    (e as TypeError & { query?: unknown }).query = query;
  }
  return e;
}
