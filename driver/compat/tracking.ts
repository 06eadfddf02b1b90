/**
 * When the client reports to `options.requestTracker` and `client.metrics`, as DataStax's
 * request execution does: once per QUERY, EXECUTE or BATCH request the client sends for
 * `execute`, `batch`, `eachRow` and `stream` (a page each), with the coordinator's Host, the
 * statement and its values as the application gave them, the request's options, the lengths of
 * the request's and the response's frame bodies, and the latency as `[seconds, nanoseconds]`.
 * The PREPARE requests and the client's own metadata queries are not reported (not on
 * DataStax either). As DataStax's, they hear every execution on a node: an execution that
 * failed and was retried (on the same node or the next) is reported with its own node, error
 * (`coordinator` set, no `query`, as DataStax's) and time, then `retries.*` (or `ignoredErrors`);
 * the execution that answered or failed for good last, with the time it took. The core keeps
 * each execution's outcome and hands it over with the answer (`src/attempts.ts`), only for a
 * request sent more than once or that failed.
 */
import { type FailedAttempt, failedAttemptsOf, failedPreparing } from "../src/attempts.ts";
import { ConnectionError, OperationTimedOutError, ResponseError } from "../src/errors.ts";
import type { Tried } from "../src/session.ts";
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
  /** How a native result got its answer beyond its first execution. */
  tried?: Tried;
}

/** `ms` milliseconds as `[seconds, nanoseconds]`. */
function latencyOf(ms: number): Latency {
  const nanos = Math.round(ms * 1e6);
  return [Math.floor(nanos / 1e9), nanos % 1e9];
}

/** `[seconds, nanoseconds]` since `start` (a `performance.now()`), as `process.hrtime(start)`. */
export function latencySince(start: number): Latency {
  const nanos = Math.round((performance.now() - start) * 1e6);
  return [Math.floor(nanos / 1e9), nanos % 1e9];
}

/** The metrics method DataStax calls after an execution it retries, by the error's class and server code. */
function reportRetry(metrics: ClientMetrics, e: Error): void {
  if (e instanceof OperationTimedOutError) return metrics.onClientTimeoutRetry(e);
  switch ((e as ResponseError).code) {
    case codes.unavailableException:
      return metrics.onUnavailableRetry(e);
    case codes.readTimeout:
      return metrics.onReadTimeoutRetry(e);
    case codes.writeTimeout:
      return metrics.onWriteTimeoutRetry(e);
    default:
      return metrics.onOtherErrorRetry(e);
  }
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
   * Runs `send` (one request) and reports each of its executions; `reshape` makes a failure the
   * error the application gets (what the tracker is given too), `attempt` true for the error of
   * an execution that was retried.
   */
  async observe<T extends Outcome>(send: () => Promise<T>, request: () => TrackedRequest, reshape: (e: unknown, attempt: boolean) => unknown): Promise<T> {
    const start = performance.now();
    let result: T;
    try {
      result = await send();
    } catch (e) {
      // A statement the node could not prepare was never sent (DataStax reports no PREPARE).
      if (failedPreparing(e) !== undefined) throw reshape(e, false);
      const attempts = failedAttemptsOf(e);
      const err = reshape(e, false);
      // The last execution is the request's error (unless no node was left: not reported, as DataStax).
      const last = attempts.at(-1);
      const final = last !== undefined && last.decision !== "retry" && last.decision !== "ignore" ? last : undefined;
      report(() => this.attempts(final ? attempts.slice(0, -1) : attempts, request, reshape));
      if (wasSent(err)) report(() => this.failed(err, final ? latencyOf(final.elapsedMs) : latencySince(start), request));
      throw err;
    }
    const tried = result.tried;
    report(() => this.attempts(tried?.attempts ?? [], request, reshape));
    const latency = tried?.answeredInMs ? latencyOf(tried.answeredInMs) : latencySince(start);
    report(() => this.succeeded(result, latency, request));
    return result;
  }

  /** Each execution that failed and was followed by another (or answered empty), as DataStax reports it. */
  private attempts(attempts: FailedAttempt[], request: () => TrackedRequest, reshape: (e: unknown, attempt: boolean) => unknown): void {
    for (const a of attempts) {
      const err = reshape(a.error, true) as Error;
      (err as Error & { coordinator?: string }).coordinator = a.host;
      this.failed(err, latencyOf(a.elapsedMs), request, a.host);
      if (a.decision === "retry") reportRetry(this.metrics, err);
      else if (a.decision === "ignore") this.metrics.onIgnoreError(err);
    }
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

  private failed(e: Error, latency: Latency, request: () => TrackedRequest, host?: string): void {
    reportError(this.metrics, e);
    if (e instanceof ResponseError) this.metrics.onResponse(latency);
    if (this.tracker === null) return;
    const r = request();
    const f = e as Error & Outcome & { coordinator?: string; host?: string };
    const address = host ?? (f.coordinator || f.host || "");
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
