/**
 * `metadata.getTrace` as DataStax's: its own shape of the trace (`requestType`, `coordinator`,
 * `parameters`, `startedAt`, `duration`, `clientAddress`, `events` of `{ id, activity, source,
 * elapsed, thread }`) with compat values (`InetAddress`, `TimeUuid`), not the core's rows.
 */
import type { ResultSet as CoreResultSet } from "../src/result.ts";
import type { EncodingOptions } from "./convert.ts";
import { convertRows } from "./result.ts";
import type { InetAddress, Row } from "./values.ts";
import type { Long } from "./numbers.ts";
import type { Uuid } from "../src/values/uuid.ts";

/** DataStax's: 5 reads 400 ms apart until the server has written the session's duration. */
const ATTEMPTS = 5;
const RETRY_MS = 400;

/** As DataStax declares it (its `clientAddress` is in fact an `InetAddress`, its `startedAt` a `Date`). */
export interface QueryTrace {
  requestType: string;
  coordinator: InetAddress;
  // deno-lint-ignore no-explicit-any
  parameters: { [key: string]: any };
  startedAt: number | Long;
  duration: number;
  clientAddress: string;
  // deno-lint-ignore no-explicit-any
  events: Array<{ id: Uuid; activity: any; source: any; elapsed: any; thread: any }>;
}

type Query = (cql: string, options: { consistency?: number }) => Promise<CoreResultSet>;

/**
 * Reads the trace as DataStax does: the id written into the CQL text (so a malformed id is the
 * server's syntax error), at `consistency` when given, not seen by request trackers (DataStax
 * reads it on the control connection); a trace still incomplete after the last read is an Error.
 */
export async function readTrace(query: Query, encoding: EncodingOptions, traceId: unknown, consistency: number | null | undefined): Promise<QueryTrace> {
  const options = consistency == null ? {} : { consistency };
  const rows = async (cql: string): Promise<Row[]> => convertRows(await query(cql, options), encoding);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const session = (await rows(`SELECT * FROM system_traces.sessions WHERE session_id=${traceId}`))[0];
    if (session === undefined || typeof session.duration !== "number") {
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      continue;
    }
    const trace = {
      requestType: session.request,
      coordinator: session.coordinator,
      parameters: session.parameters,
      startedAt: session.started_at,
      duration: session.duration,
      clientAddress: session.client,
      events: null as unknown,
    };
    trace.events = (await rows(`SELECT * FROM system_traces.events WHERE session_id=${traceId}`)).map((e) => ({
      id: e.event_id,
      activity: e.activity,
      source: e.source,
      elapsed: e.source_elapsed,
      thread: e.thread,
    }));
    return trace as QueryTrace;
  }
  throw new Error(`Trace ${String(traceId)} could not fully retrieved after ${ATTEMPTS} attempts`);
}
