/** Shared bits of the integration tests: a real Cassandra at CQLWIRE_HOSTS (default 127.0.0.1). */
import { Client } from "../../driver/deno.ts";
import { assertExact } from "../exact.mjs";

export const HOSTS = (Deno.env.get("CQLWIRE_HOSTS") ?? "127.0.0.1:9042").split(",");

export function client(extra: Record<string, unknown> = {}): Client {
  return new Client({ contactPoints: HOSTS, localDataCenter: "datacenter1", ...extra });
}

export function assert(cond: unknown, message = "assertion failed"): asserts cond {
  if (!cond) throw new Error(message);
}

/** Exact equality (tests/exact.mjs): NaN, -0, ±Infinity, Map, Set, Date and the value classes kept. */
export function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  assertExact(actual, expected, message);
}

export async function assertRejects(fn: () => Promise<unknown>, check: (e: Error) => boolean, message = ""): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    if (!check(e as Error)) throw new Error(`${message}: unexpected error ${(e as Error)?.name}: ${(e as Error)?.message}`);
    return e as Error;
  }
  throw new Error(`${message}: expected a rejection`);
}

export const KS = "cqlwire_it";

export async function withKeyspace(c: Client): Promise<void> {
  await c.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
}
