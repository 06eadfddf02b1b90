// How long the property suites run. `make test` runs each property briefly with a fixed seed
// (the same inputs every run); `make fuzz` sets CQLWIRE_PROPS_RUNS high and, without
// CQLWIRE_PROPS_SEED, a fresh seed. fast-check prints the seed and path of any failure;
// rerun it with CQLWIRE_PROPS_SEED=<seed> (and the same runs).
import fc from "fast-check";

const DEFAULT_RUNS = 200;
const DEFAULT_SEED = 0x12c0de;

function envNumber(name: string): number | undefined {
  const text = Deno.env.get(name);
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`${name}=${text} is not an integer`);
  return value;
}

const runs = envNumber("CQLWIRE_PROPS_RUNS") ?? DEFAULT_RUNS;
const seed = envNumber("CQLWIRE_PROPS_SEED") ?? (runs > DEFAULT_RUNS ? Date.now() | 0 : DEFAULT_SEED);

/** Parameters for fc.assert: `scale` multiplies the runs for cheap properties. */
export function params<T>(scale = 1): fc.Parameters<T> {
  return { numRuns: Math.max(1, Math.round(runs * scale)), seed, includeErrorInReport: true };
}

/** Runs a property, adding the seed to the failure message so a log alone reproduces it. */
export function check<T>(property: fc.IProperty<T> | fc.IAsyncProperty<T>, scale = 1): void | Promise<void> {
  const p = params<T>(scale);
  const fail = (e: unknown): never => {
    throw new Error(`property failed (CQLWIRE_PROPS_SEED=${seed} CQLWIRE_PROPS_RUNS=${runs})\n${(e as Error).message}`);
  };
  if (property.isAsync()) return (fc.assert(property as fc.IAsyncProperty<T>, p) as Promise<void>).catch(fail);
  try {
    fc.assert(property as fc.IProperty<T>, p);
  } catch (e) {
    fail(e);
  }
}

export { fc };
