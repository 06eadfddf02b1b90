/**
 * DataStax's `tracker` module: `RequestTracker`, called once a QUERY, EXECUTE or BATCH request
 * has its answer (`onSuccess`) or failed (`onError`), and `RequestLogger`, a tracker that
 * emits a line of text per slow, large, normal or failed request on its `emitter`. The lines
 * are DataStax's, character for character: applications parse and alert on them.
 * What calls a tracker, when and with which arguments is in `tracking.ts`.
 */
import { ArgumentError } from "../src/errors.ts";
import { Emitter } from "./emitter.ts";
import type { ExecutionOptions } from "./execution_options.ts";
import type { Latency } from "./metrics.ts";

/** A batch's statements as the tracker sees them (DataStax's `{ query, params }` items). */
export type TrackedQuery = string | Array<{ query: string; params?: unknown }>;
export type TrackedParams = unknown[] | Record<string, unknown> | null | undefined;
/** The coordinator: a `Host` of `client.hosts` (only `address` is read here). */
export interface TrackedHost {
  address: string;
}

export class RequestTracker {
  onSuccess(_host: TrackedHost, _query: TrackedQuery, _parameters: TrackedParams, _executionOptions: ExecutionOptions, _requestLength: number, _responseLength: number, _latency: Latency): void {}
  onError(_host: TrackedHost, _query: TrackedQuery, _parameters: TrackedParams, _executionOptions: ExecutionOptions, _requestLength: number, _err: Error, _latency: Latency): void {}
  shutdown(): void {}
}

export interface RequestLoggerOptions {
  slowThreshold?: number;
  requestSizeThreshold?: number;
  logNormalRequests?: boolean;
  logErroredRequests?: boolean;
  messageMaxQueryLength?: number;
  messageMaxParameterValueLength?: number;
  messageMaxErrorStackTraceLength?: number;
}

// DataStax's defaults: a 0 or absent length option means these.
const MAX_QUERY = 500;
const MAX_PARAMETER = 50;
const MAX_STACK = 200;

export class RequestLogger extends RequestTracker {
  /** Emits `'slow'`, `'large'`, `'normal'` and `'failure'` with the message as argument. */
  readonly emitter: Emitter = new Emitter();
  /** Both may be changed while the client runs. */
  logNormalRequests: boolean | undefined;
  logErroredRequests: boolean | undefined;
  readonly #options: RequestLoggerOptions;

  constructor(options: RequestLoggerOptions) {
    super();
    if (!options) throw new ArgumentError("RequestLogger options parameter is required");
    this.#options = options;
    this.logNormalRequests = options.logNormalRequests;
    this.logErroredRequests = options.logErroredRequests;
  }

  override onSuccess(host: TrackedHost, query: TrackedQuery, parameters: TrackedParams, executionOptions: ExecutionOptions, requestLength: number, responseLength: number, latency: Latency): void {
    const o = this.#options;
    const ms = millis(latency);
    // One message per request: slow first, then large, then normal. Slow requests' milliseconds
    // are floored, the others' truncated to an int32 (`~~`), as DataStax writes them.
    let line: [string, string] | null = null;
    if ((o.slowThreshold as number) > 0 && ms > (o.slowThreshold as number)) {
      line = ["slow", `Slow request, took ${Math.floor(ms)} ms (${sizes(requestLength, responseLength)})`];
    } else if (this.isLarge(requestLength)) {
      line = ["large", `Request exceeded length, ${sizes(requestLength, responseLength)} (took ${ms | 0} ms)`];
    } else if (this.logNormalRequests) {
      line = ["normal", `Request completed normally, took ${ms | 0} ms (${sizes(requestLength, responseLength)})`];
    }
    if (line !== null) this.emitter.emit(line[0], `[${host.address}] ${line[1]}: ${statementInfo(query, parameters, executionOptions, o)}`);
  }

  override onError(host: TrackedHost, query: TrackedQuery, parameters: TrackedParams, executionOptions: ExecutionOptions, requestLength: number, err: Error, latency: Latency): void {
    const took = millis(latency) | 0;
    // A large request that failed is reported as large (not as a failure), as DataStax.
    let line: [string, string] | null = null;
    if (this.isLarge(requestLength)) line = ["large", `Request exceeded length and execution failed, ${sizes(requestLength)} (took ${took} ms)`];
    else if (this.logErroredRequests) line = ["failure", `Request execution failed, took ${took} ms (${sizes(requestLength)})`];
    if (line === null) return;
    const stack = String(err?.stack ?? err).slice(0, this.#options.messageMaxErrorStackTraceLength || MAX_STACK);
    this.emitter.emit(line[0], `[${host.address}] ${line[1]}: ${statementInfo(query, parameters, executionOptions, this.#options)}; error: ${stack}`);
  }

  private isLarge(requestLength: number): boolean {
    const threshold = this.#options.requestSizeThreshold as number;
    return threshold > 0 && requestLength > threshold;
  }
}

function millis(latency: Latency): number {
  return latency[0] * 1000 + latency[1] / 1e6;
}

/** `s` cut to `n` characters; nothing for `n` of 0 or less (as `substr(0, n)`). */
function cut(s: string, n: number): string {
  return n > 0 ? s.slice(0, n) : "";
}

function sizes(requestLength: number, responseLength?: number): string {
  const size = (n: number) => (n > 1000 ? `${Math.round(n / 1024)} KB` : `${n} bytes`);
  return responseLength === undefined ? `request size ${size(requestLength)}` : `request size ${size(requestLength)} / response size ${size(responseLength)}`;
}

/**
 * The statement and its values, at most `messageMaxQueryLength` characters of them (the
 * "(not prepared)" and batch header not counted), each value cut to `messageMaxParameterValueLength`.
 */
function statementInfo(query: TrackedQuery, parameters: TrackedParams, eo: ExecutionOptions, o: RequestLoggerOptions): string {
  const maxQuery = o.messageMaxQueryLength || MAX_QUERY;
  const maxParameter = o.messageMaxParameterValueLength || MAX_PARAMETER;
  if (Array.isArray(query)) return batchInfo(query, eo, maxQuery, maxParameter);
  const text = cut(query, maxQuery);
  return text + parametersInfo(parameters, maxQuery - text.length - 1, maxParameter) + (eo.isPrepared() ? "" : " (not prepared)");
}

function batchInfo(queries: Array<string | { query: string; params?: unknown }>, eo: ExecutionOptions, maxQuery: number, maxParameter: number): string {
  let out = `${eo.isBatchLogged() ? "LOGGED " : ""}BATCH w/ ${queries.length}${eo.isPrepared() ? "" : " not prepared"} queries (`;
  let remaining = maxQuery;
  let i = 0;
  // A statement cut short ends the list: `i` then still points at it, so ",...)" follows.
  for (; i < queries.length && remaining > 0; i++) {
    const item = queries[i];
    const text = typeof item === "string" ? item : item.query;
    if (i > 0) {
      out += ",";
      remaining--;
    }
    const taken = cut(text, Math.min(remaining, text.length));
    out += taken;
    remaining -= taken.length;
    if (remaining <= 0) break;
    const values = parametersInfo((item as { params?: unknown }).params as TrackedParams, remaining, maxParameter);
    remaining -= values.length;
    out += values;
  }
  return out + (i < queries.length ? ",...)" : ")");
}

/** ` [a,b,...]` within `remaining` characters; ` [...]` when fewer than 4 are left. */
function parametersInfo(params: TrackedParams, remaining: number, maxParameter: number): string {
  if (remaining <= 3) return " [...]";
  if (!params) return " []";
  const named = !Array.isArray(params);
  const keys = named ? Object.keys(params) : null;
  const count = keys ? keys.length : (params as unknown[]).length;
  let out = " [";
  let i = 0;
  for (; remaining > 0 && i < count; i++) {
    if (i > 0) {
      out += ",";
      remaining--;
    }
    const room = Math.min(maxParameter, remaining);
    const text = keys ? namedValue(keys[i], (params as Record<string, unknown>)[keys[i]], room) : valueText((params as unknown[])[i], room);
    remaining -= text.length;
    out += text;
  }
  return out + (i < count ? "..." : "") + "]";
}

/** `name:value` in `room` characters, the name first (alone when there is no room for more). */
function namedValue(key: string, value: unknown, room: number): string {
  const name = cut(key, room);
  const left = room - name.length - 1;
  return left <= 0 ? name : `${name}:${valueText(value, left)}`;
}

function valueText(value: unknown, room: number): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  return cut(String((value as { toString(): string }).toString()), room);
}

