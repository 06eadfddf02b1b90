/** Shared bits of the integration tests: a real Cassandra at CQLWIRE_HOSTS (default 127.0.0.1). */
import { Client } from "../../driver/deno.ts";

export const HOSTS = (Deno.env.get("CQLWIRE_HOSTS") ?? "127.0.0.1:9042").split(",");

export function client(extra: Record<string, unknown> = {}): Client {
  return new Client({ contactPoints: HOSTS, localDataCenter: "datacenter1", ...extra });
}

export function assert(cond: unknown, message = "assertion failed"): asserts cond {
  if (!cond) throw new Error(message);
}

export function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = stable(actual);
  const e = stable(expected);
  if (a !== e) {
    // Long values (a 10k-digit varint) would bury the difference: show where it starts.
    let i = 0;
    while (i < a.length && a[i] === e[i]) i++;
    const from = Math.max(0, i - 120);
    const cut = (s: string) => (from > 0 ? "…" : "") + s.slice(from, i + 200) + (s.length > i + 200 ? "…" : "");
    throw new Error(`${message} (first difference at character ${i})\n  actual:   ${cut(a)}\n  expected: ${cut(e)}`);
  }
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

/** JSON with bigint, Map, typed arrays and Dates made comparable. */
export function stable(v: unknown): string {
  return JSON.stringify(v, (_k, x) => {
    if (typeof x === "bigint") return `${x}n`;
    if (x instanceof Map) return { map: [...x.entries()] };
    if (x instanceof Uint8Array) return { bytes: [...x] };
    if (x instanceof Float32Array) return { f32: [...x] };
    if (x instanceof Set) return { set: [...x] };
    if (x && typeof x === "object" && !Array.isArray(x) && x.constructor && x.constructor !== Object && typeof x.toString === "function" && !(x instanceof Date)) {
      return { [x.constructor.name]: x.toString() };
    }
    return x;
  });
}

export const KS = "cqlwire_it";

export async function withKeyspace(c: Client): Promise<void> {
  await c.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
}
