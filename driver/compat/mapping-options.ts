/**
 * The query options the mapper sends, built as DataStax's (mapping/doc-info-adapter.js): only
 * the fields of its `MappingExecutionOptions` are read (a `consistency` given to a mapper method
 * is not used there either), an execution profile's name stands for `{ executionProfile }`, and
 * the objects have DataStax's keys in DataStax's order, undefined ones included.
 */
import type { CompatQueryOptions } from "./options.ts";

/** DataStax's `executionOptions` of the mapper's methods: these options, or an execution profile's name. */
export type MappingExecutionOptions = string | Pick<CompatQueryOptions, "executionProfile" | "isIdempotent" | "logged" | "timestamp" | "fetchSize" | "pageState">;

type Given = MappingExecutionOptions | null | undefined;
const fields = (o: Given) => (typeof o === "string" ? { executionProfile: o } : o ?? undefined);

/** A single INSERT, UPDATE or DELETE; `isIdempotent` is the statement's unless the options say. */
export function mutationOptions(o: Given, isIdempotent: boolean): CompatQueryOptions {
  const f = fields(o);
  const given = f?.isIdempotent;
  return { prepare: true, executionProfile: f?.executionProfile, timestamp: f?.timestamp, isIdempotent: given !== undefined ? given : isIdempotent };
}

/** A SELECT (`idempotent`: always so) or `mapWithQuery`'s statement (as the options say). */
export function queryOptions(o: Given, idempotent: boolean): CompatQueryOptions {
  const f = fields(o);
  return {
    prepare: true,
    executionProfile: f?.executionProfile,
    fetchSize: f?.fetchSize,
    pageState: f?.pageState,
    timestamp: f?.timestamp,
    isIdempotent: idempotent ? true : f?.isIdempotent,
  };
}

/** `mapper.batch`: logged unless `logged: false` in an options object; a counter batch as the caller says. */
export function batchOptions(o: Given, isIdempotent: boolean, counter: boolean | undefined): CompatQueryOptions {
  const f = fields(o);
  const given = f?.isIdempotent;
  return {
    prepare: true,
    executionProfile: f?.executionProfile,
    timestamp: f?.timestamp,
    logged: typeof o === "object" && o !== null ? o.logged !== false : undefined,
    isIdempotent: given !== undefined ? given : isIdempotent,
    counter,
  };
}
