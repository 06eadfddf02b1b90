/**
 * Errors as the DataStax driver shapes them. cqlwire's own `ResponseError.message` reads
 * "Invalid (0x2200) from host: text"; DataStax's is the server's text alone, with `info`
 * naming a server error and `query` the statement, so code that matches on `err.message`
 * (e.g. "Undefined column name ...") or logs `err.query` sees the same thing on both.
 */
import { DriverError, NoHostAvailableError, ResponseError } from "../src/errors.ts";
import { consistencies, responseErrorCodes as codes } from "../src/types.ts";

const SERVER_INFO = "Represents an error message from the server";

/** Reshapes `e` in place (it belongs to this one request) and returns the error to throw. */
export function dataStaxError(e: unknown, query: unknown): unknown {
  if (e instanceof ResponseError) {
    if (typeof e.serverMessage === "string") setMessage(e, e.serverMessage);
    if (typeof e.consistency === "string") withConsistencyFields(e, e.consistency);
    e.info = SERVER_INFO;
    if (e.query === undefined) e.query = query;
    return e;
  }
  // The server errors inside (as when no node took the connection's keyspace) read the same way.
  if (e instanceof NoHostAvailableError && e.innerErrors) {
    for (const inner of Object.values(e.innerErrors)) dataStaxError(inner, query);
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

/**
 * Gives `e` DataStax's message, in its stack trace's first line too (which a RequestLogger
 * logs): runtimes that wrote the stack when the error was made (workerd) keep the old one.
 */
export function setMessage(e: Error, message: string): void {
  if (e.message === message) return;
  const head = `${e.name}: ${e.message}`;
  const stack = e.stack;
  e.message = message;
  if (typeof stack === "string" && stack.startsWith(head)) e.stack = `${e.name}: ${message}${stack.slice(head.length)}`;
}

/** "LOCAL_QUORUM" → consistencies.localQuorum. */
function consistencyCode(name: string): number | undefined {
  const key = name.toLowerCase().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
  return (consistencies as Record<string, number>)[key];
}

/**
 * Unavailable, timeouts and failures as DataStax reads them: the fields under its names
 * (`consistencies` as a code, `blockFor`, `isDataPresent` as 0/1, `writeType`, `failures`) and
 * its message, which says the numbers (the server's own text stays in `serverMessage`).
 */
function withConsistencyFields(e: ResponseError, name: string): void {
  const f = e as ResponseError & Record<string, unknown>;
  f.consistencies = consistencyCode(name);
  if (f.block_for !== undefined) f.blockFor = f.block_for;
  if (f.write_type !== undefined) f.writeType = f.write_type;
  if (f.data_present !== undefined) f.isDataPresent = f.data_present ? 1 : 0;
  if (f.num_failures !== undefined) f.failures = f.num_failures;
  if (Array.isArray(f.reasons)) f.reasons = Object.fromEntries(f.reasons as Array<[string, number]>);
  const text = dataStaxMessage(e.code, name, f);
  if (text !== null) setMessage(e, text);
}

function dataStaxMessage(code: number, c: string, f: Record<string, unknown>): string | null {
  switch (code) {
    case codes.unavailableException:
      return `Not enough replicas available for query at consistency ${c} (${f.required} required but only ${f.alive} alive)`;
    case codes.readTimeout: {
      const details = Number(f.received) < Number(f.blockFor)
        ? `${f.received} replica(s) responded over ${f.blockFor} required`
        : f.isDataPresent ? "timeout while waiting for repair of inconsistent replica" : "the replica queried for the data didn't respond";
      return `Server timeout during read query at consistency ${c} (${details})`;
    }
    case codes.readFailure:
      return `Server failure during read query at consistency ${c} (${f.blockFor} responses were required but only ${f.received} replicas responded, ${f.failures} failed)`;
    case codes.writeTimeout:
      return `Server timeout during ${f.writeType === "BATCH_LOG" ? "batchlog write" : "write query"} at consistency ${c} (${f.received} peer(s) acknowledged the write over ${f.blockFor} required)`;
    case codes.writeFailure:
      return `Server failure during write query at consistency ${c} (${f.blockFor} responses were required but only ${f.received} replicas responded, ${f.failures} failed)`;
    default:
      return null;
  }
}
