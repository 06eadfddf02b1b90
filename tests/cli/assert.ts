// Assertions for the CLI tests. jsr:@std/assert is out of reach offline and node:assert
// needs @types/node for type checking, so these few are written here; equality is the shared
// exact comparison.
import { assertExact } from "../exact.mjs";

export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

function show(value: unknown): string {
  return Deno.inspect(value, { depth: 8, colors: false, strAbbreviateSize: 400 });
}

/** Exact equality: the one comparison of every suite (tests/exact.mjs). */
export function assertEquals(actual: unknown, expected: unknown, message?: string): void {
  assertExact(actual, expected, message);
}

export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  if (!pattern.test(actual)) {
    throw new AssertionError(`${message ? `${message}: ` : ""}${show(actual)} does not match ${pattern}`);
  }
}

export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  if (!actual.includes(expected)) {
    throw new AssertionError(`${message ? `${message}: ` : ""}${show(actual)} does not include ${show(expected)}`);
  }
}

/** Calls fn, requires it to throw an instance of errorClass whose message matches pattern. */
export function assertThrows<E extends Error>(
  fn: () => unknown,
  errorClass: new (...args: never[]) => E,
  pattern?: RegExp,
): E {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof errorClass)) {
      throw new AssertionError(`expected ${errorClass.name}, got ${show(error)}`);
    }
    if (pattern && !pattern.test(error.message)) {
      throw new AssertionError(`error message ${show(error.message)} does not match ${pattern}`);
    }
    return error;
  }
  throw new AssertionError(`expected ${errorClass.name} to be thrown, nothing was`);
}

export async function assertRejects<E extends Error>(
  fn: () => Promise<unknown>,
  errorClass: new (...args: never[]) => E,
  pattern?: RegExp,
): Promise<E> {
  try {
    await fn();
  } catch (error) {
    if (!(error instanceof errorClass)) {
      throw new AssertionError(`expected ${errorClass.name}, got ${show(error)}`);
    }
    if (pattern && !pattern.test(error.message)) {
      throw new AssertionError(`error message ${show(error.message)} does not match ${pattern}`);
    }
    return error;
  }
  throw new AssertionError(`expected ${errorClass.name} to be thrown, nothing was`);
}
