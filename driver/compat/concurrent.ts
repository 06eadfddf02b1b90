/** `concurrent.executeConcurrent`: many executions with a bounded number in flight. */
import { ArgumentError } from "../src/errors.ts";
import type { Client } from "./client.ts";
import type { CompatQueryOptions } from "./options.ts";
import type { ResultSet } from "./result.ts";

/**
 * DataStax declares only `executionProfile` of the query options here (plus the executor's own);
 * the rest are accepted for code that passes them, and ignored, as DataStax ignores them.
 */
export interface ConcurrentOptions extends CompatQueryOptions {
  concurrencyLevel?: number;
  raiseOnFirstError?: boolean;
  collectResults?: boolean;
  maxErrors?: number;
}

export interface ResultSetGroup {
  errors: Error[];
  resultItems: Array<ResultSet | Error>;
  totalExecuted: number;
}

type Item = { query: string; params: unknown[] | Record<string, unknown> };

/** The part of a Node `Readable` (object mode) that DataStax's executor uses. */
interface NodeStreamLike {
  on(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  isPaused(): boolean;
}

function isNodeStream(v: unknown): v is NodeStreamLike {
  const s = v as Partial<NodeStreamLike> | null;
  return typeof s?.on === "function" && typeof s.pause === "function" && typeof s.resume === "function" &&
    typeof s.isPaused === "function";
}

/**
 * As DataStax's: without `collectResults`, `resultItems` is a getter that throws, so code that
 * forgot the option learns it instead of reading an empty array.
 */
function newGroup(collect: boolean | undefined): ResultSetGroup {
  const group = { errors: [], totalExecuted: 0 } as unknown as ResultSetGroup;
  if (collect) group.resultItems = [];
  else {
    Object.defineProperty(group, "resultItems", {
      enumerable: false,
      get: () => {
        throw new Error("Property resultItems can not be accessed when collectResults is set to false");
      },
    });
  }
  return group;
}

/**
 * `executeConcurrent(client, query, paramsArrayOrStream, options)` or
 * `executeConcurrent(client, [{ query, params }...], options)`.
 */
export async function executeConcurrent(
  client: Client,
  query: string | Array<{ query: string; params?: unknown[] | Record<string, unknown> }>,
  parameters?: Iterable<unknown[]> | AsyncIterable<unknown[]> | ConcurrentOptions,
  options?: ConcurrentOptions,
): Promise<ResultSetGroup> {
  let items: Iterable<Item> | AsyncIterable<Item>;
  let o: ConcurrentOptions;
  if (typeof query === "string") {
    if (parameters === undefined || parameters === null) throw new ArgumentError("executeConcurrent needs the parameters");
    o = options ?? {};
    if (isNodeStream(parameters)) return fromNodeStream(client, query, parameters, o);
    items = mapItems(parameters as Iterable<unknown[]> | AsyncIterable<unknown[]>, query);
  } else if (Array.isArray(query)) {
    o = (parameters as ConcurrentOptions | undefined) ?? {};
    items = query.map((q) => ({ query: q.query, params: q.params ?? [] }));
  } else {
    throw new ArgumentError("executeConcurrent needs a query string or an array of { query, params }");
  }
  const limit = Math.max(1, o.concurrencyLevel ?? 100);
  const raise = o.raiseOnFirstError ?? true;
  const { group, run } = executor(client, o);
  const running = new Set<Promise<void>>();
  let failure: Error | null = null;
  for await (const item of items as AsyncIterable<Item>) {
    if (failure) break;
    const p: Promise<void> = run(item).then((e) => {
      if (e && raise) failure ??= e;
    }).finally(() => running.delete(p));
    running.add(p);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure;
  return group;
}

/** One execution at the next index, recorded in the group; resolves to its error, if any. */
function executor(client: Client, o: ConcurrentOptions) {
  const raise = o.raiseOnFirstError ?? true;
  const maxErrors = o.maxErrors ?? 100;
  // As DataStax's executor: each item prepared, with the profile and none of the other options
  // (a `consistency`, `fetchSize` or `prepare: false` given here is not used; the profile's are).
  const queryOptions = { prepare: true, executionProfile: o.executionProfile };
  const group = newGroup(o.collectResults);
  let index = 0;
  const run = (item: Item): Promise<Error | null> => {
    const at = index++;
    return (client.execute(item.query, item.params, queryOptions) as Promise<ResultSet>).then(
      (rs) => {
        group.totalExecuted++;
        if (o.collectResults) group.resultItems[at] = rs;
        return null;
      },
      (e: Error) => {
        group.totalExecuted++;
        if (!raise && group.errors.length < maxErrors) group.errors.push(e);
        if (o.collectResults) group.resultItems[at] = e;
        return e;
      },
    );
  };
  return { group, run };
}

/**
 * A Node stream of parameter arrays, read as DataStax reads it: `data` events, paused while
 * `concurrencyLevel` executions are in flight and resumed as each ends (so a large file is
 * not read ahead into memory); a read error rejects whatever `raiseOnFirstError` says.
 */
function fromNodeStream(client: Client, query: string, stream: NodeStreamLike, o: ConcurrentOptions): Promise<ResultSetGroup> {
  const limit = Math.max(1, o.concurrencyLevel ?? 100);
  const raise = o.raiseOnFirstError ?? true;
  const { group, run } = executor(client, o);
  return new Promise((resolve, reject) => {
    let inFlight = 0;
    let ended = false;
    const readEnded = (err?: Error) => {
      if (ended) return;
      ended = true;
      if (err) reject(err);
      else if (inFlight === 0) resolve(group);
    };
    const one = (params: unknown) => {
      if (!Array.isArray(params)) return readEnded(new TypeError("Stream should be in objectMode and should emit Array instances"));
      if (ended) return;
      inFlight++;
      void run({ query, params }).then((e) => {
        inFlight--;
        if (e && raise) {
          ended = true;
          reject(e);
        }
        if (stream.isPaused()) stream.resume();
        if (ended && inFlight === 0) resolve(group);
      });
      if (inFlight >= limit) stream.pause();
    };
    stream.on("data", one);
    stream.on("error", readEnded);
    stream.on("end", () => readEnded());
  });
}

async function* mapItems(source: Iterable<unknown[]> | AsyncIterable<unknown[]>, query: string): AsyncGenerator<Item> {
  for await (const params of source as AsyncIterable<unknown[]>) yield { query, params };
}

export const concurrent = { executeConcurrent };
