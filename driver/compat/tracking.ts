/**
 * When the client reports to `options.requestTracker` and `client.metrics`, as DataStax's
 * request execution does: once per QUERY, EXECUTE or BATCH request the client sends for
 * `execute`, `batch`, `eachRow` and `stream` (a page each), with the coordinator's Host, the
 * statement and its values as the application gave them, the request's options, the lengths of
 * the request's and the response's frame bodies, and the latency as `[seconds, nanoseconds]`.
 * The PREPARE requests and the client's own metadata queries are not reported (not on
 * DataStax either). cqlwire's core retries inside one request: the tracker and the metrics
 * hear its final outcome once, not each attempt (README, known differences).
 */
import { ConnectionError, OperationTimedOutError, ResponseError } from "../src/errors.ts";
import { responseErrorCodes as codes } from "../src/types.ts";
import type { ExecutionOptions } from "./execution_options.ts";
import { ClientMetrics, type Latency } from "./metrics.ts";
import type { TrackedHost, TrackedParams, TrackedQuery } from "./tracker.ts";
import { RequestTracker } from "./tracker.ts";

/** What a tracker is told about a request besides its outcome. */
export interface TrackedRequest {
  query: TrackedQuery;
  params: TrackedParams;
  options: ExecutionOptions;
}

/** What cqlwire's results and errors carry for this: the coordinator and the frame bodies' lengths. */
interface Outcome {
  info?: { queriedHost?: string; speculativeExecutions?: number };
  wireLengths?: { request: number; response: number };
}

/** `[seconds, nanoseconds]` since `start` (a `performance.now()`), as `process.hrtime(start)`. */
export function latencySince(start: number): Latency {
  const nanos = Math.round((performance.now() - start) * 1e6);
  return [Math.floor(nanos / 1e9), nanos % 1e9];
}

/** The metrics method DataStax calls for a failed request, by the error's class and server code. */
function reportError(metrics: ClientMetrics, e: Error): void {
  if (e instanceof OperationTimedOutError) return metrics.onClientTimeoutError(e);
  if (e instanceof ConnectionError) return metrics.onConnectionError(e);
  switch ((e as ResponseError).code) {
    case codes.unavailableException:
      return metrics.onUnavailableError(e);
    case codes.readTimeout:
      return metrics.onReadTimeoutError(e);
    case codes.writeTimeout:
      return metrics.onWriteTimeoutError(e);
    case codes.unprepared:
      return; // re-prepared and sent again, not an error of the request
    default:
      return metrics.onOtherError(e);
  }
}

/** Whether `e` is the outcome of a request sent (not refused by the client before sending). */
function wasSent(e: unknown): e is Error {
  return e instanceof ResponseError || e instanceof OperationTimedOutError || e instanceof ConnectionError;
}

/**
 * Runs a report: what a tracker or a metrics listener throws is an uncaught exception, as on
 * DataStax (where it is thrown out of the socket's handler), not the request's failure.
 */
function report(call: () => void): void {
  try {
    call();
  } catch (e) {
    queueMicrotask(() => {
      throw e;
    });
  }
}

export class Tracking {
  constructor(
    readonly metrics: ClientMetrics,
    readonly tracker: RequestTracker | null,
    private readonly hostOf: (address: string) => TrackedHost,
  ) {}

  /**
   * Runs `send` (one request) and reports its outcome; `reshape` makes a failure the error
   * the application gets (what the tracker is given too).
   */
  async observe<T extends Outcome>(send: () => Promise<T>, request: () => TrackedRequest, reshape: (e: unknown) => unknown): Promise<T> {
    const start = performance.now();
    let result: T;
    try {
      result = await send();
    } catch (e) {
      const err = reshape(e);
      if (wasSent(err)) report(() => this.failed(err, latencySince(start), request));
      throw err;
    }
    report(() => this.succeeded(result, latencySince(start), request));
    return result;
  }

  private succeeded(result: Outcome, latency: Latency, request: () => TrackedRequest): void {
    const m = this.metrics;
    for (let i = result.info?.speculativeExecutions ?? 0; i > 0; i--) m.onSpeculativeExecution();
    m.onSuccessfulResponse(latency);
    m.onResponse(latency);
    if (this.tracker === null) return;
    const r = request();
    const lengths = result.wireLengths;
    this.tracker.onSuccess(this.hostOf(result.info?.queriedHost ?? ""), r.query, r.params, r.options, lengths?.request ?? 0, lengths?.response ?? 0, latency);
  }

  private failed(e: Error, latency: Latency, request: () => TrackedRequest): void {
    reportError(this.metrics, e);
    if (e instanceof ResponseError) this.metrics.onResponse(latency);
    if (this.tracker === null) return;
    const r = request();
    const f = e as Error & Outcome & { coordinator?: string; host?: string };
    const address = f.coordinator || f.host || "";
    this.tracker.onError(this.hostOf(address), r.query, r.params, r.options, f.wireLengths?.request ?? 0, e, latency);
  }
}

/** The client's metrics and tracker from its options, refused as DataStax refuses them. */
export function trackingOptions(o: { requestTracker?: unknown; metrics?: unknown }): { tracker: RequestTracker | null; metrics: ClientMetrics | undefined } {
  const tracker = o.requestTracker ?? null;
  if (tracker !== null && !(tracker instanceof RequestTracker)) throw new TypeError("requestTracker must be an instance of RequestTracker");
  if (o.metrics !== undefined && !(o.metrics instanceof ClientMetrics)) throw new TypeError("metrics must be an instance of ClientMetrics");
  return { tracker, metrics: o.metrics as ClientMetrics | undefined };
}
