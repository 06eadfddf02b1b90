/**
 * Each execution of a request that failed on a node, as the core reports it (typed: the
 * error's own fields, never its text): what DataStax's request trackers and metrics are told
 * per execution. Crosses once per answer, and only for a request sent more than once or that
 * failed: a request answered by its first execution costs nothing here.
 */
import { errorFromCore } from "./errors.ts";

/** One failed execution: its node, its error, how long it ran, what was decided after it. */
export interface FailedAttempt {
  host: string;
  error: Error;
  /** Milliseconds from the execution being sent to its failure. */
  elapsedMs: number;
  /** `retry`: sent again (here or on the next node); `rethrow`: the request's error; `ignore`: answered empty; null: no decision (another execution was running). */
  decision: "retry" | "rethrow" | "ignore" | null;
}

/** `[node, message, code, attempt]` per failed execution, as the core writes them. */
export type CoreNodeError = [string, string, number | null, (Record<string, unknown> & { elapsed_us?: number; decision?: FailedAttempt["decision"] })?];

export function failedAttempts(errors: CoreNodeError[]): FailedAttempt[] {
  return errors.map(([host, message, , attempt]) => ({
    host,
    error: errorFromCore(attempt ?? { kind: "closed", message }, host),
    elapsedMs: (attempt?.elapsed_us ?? 0) / 1000,
    decision: attempt?.decision ?? null,
  }));
}

const ATTEMPTS = Symbol("cqlwire.failedAttempts");

/** Attaches a failed request's executions to its error (not enumerable: the error's shape is unchanged). */
export function attachFailedAttempts(err: Error, attempts: FailedAttempt[]): void {
  Object.defineProperty(err, ATTEMPTS, { value: attempts, enumerable: false, configurable: true });
}

/** The executions of the request `err` failed, each with its own error; empty when not known. */
export function failedAttemptsOf(err: unknown): FailedAttempt[] {
  return ((err as Record<symbol, unknown> | null)?.[ATTEMPTS] as FailedAttempt[] | undefined) ?? [];
}

const PREPARING = Symbol("cqlwire.preparing");

/** Marks `err` as the failure to prepare `query`, a statement a request needed (not of the request's own execution). */
export function markPreparing(err: unknown, query: string): unknown {
  if (err instanceof Error && Object.isExtensible(err)) Object.defineProperty(err, PREPARING, { value: query, enumerable: false, configurable: true });
  return err;
}

/** The statement `err` failed to prepare (the request itself was never sent); undefined for any other error. */
export function failedPreparing(err: unknown): string | undefined {
  return (err as Record<symbol, string | undefined> | null)?.[PREPARING];
}
