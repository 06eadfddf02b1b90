/** `concurrent.executeConcurrent`: many executions with a bounded number in flight. */
import { ArgumentError } from "../src/errors.ts";
import type { Client } from "./client.ts";
import type { CompatQueryOptions } from "./options.ts";
import type { ResultSet } from "./result.ts";

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
    items = mapItems(parameters as Iterable<unknown[]> | AsyncIterable<unknown[]>, query);
  } else if (Array.isArray(query)) {
    o = (parameters as ConcurrentOptions | undefined) ?? {};
    items = query.map((q) => ({ query: q.query, params: q.params ?? [] }));
  } else {
    throw new ArgumentError("executeConcurrent needs a query string or an array of { query, params }");
  }
  const limit = Math.max(1, o.concurrencyLevel ?? 100);
  const raise = o.raiseOnFirstError ?? true;
  const maxErrors = o.maxErrors ?? 100;
  const { concurrencyLevel: _c, raiseOnFirstError: _r, collectResults: _k, maxErrors: _m, ...queryOptions } = o;
  const group: ResultSetGroup = { errors: [], resultItems: [], totalExecuted: 0 };
  const running = new Set<Promise<void>>();
  let failure: Error | null = null;
  let index = 0;
  for await (const item of items as AsyncIterable<Item>) {
    if (failure) break;
    const at = index++;
    const p: Promise<void> = (client.execute(item.query, item.params, { prepare: true, ...queryOptions }) as Promise<ResultSet>).then(
      (rs) => {
        group.totalExecuted++;
        if (o.collectResults) group.resultItems[at] = rs;
      },
      (e: Error) => {
        group.totalExecuted++;
        if (raise) failure ??= e;
        else if (group.errors.length < maxErrors) group.errors.push(e);
        if (o.collectResults) group.resultItems[at] = e;
      },
    ).finally(() => running.delete(p));
    running.add(p);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure;
  return group;
}

async function* mapItems(source: Iterable<unknown[]> | AsyncIterable<unknown[]>, query: string): AsyncGenerator<Item> {
  for await (const params of source as AsyncIterable<unknown[]>) yield { query, params };
}

export const concurrent = { executeConcurrent };
