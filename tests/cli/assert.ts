// Assertions for the CLI tests. jsr:@std/assert is out of reach offline and node:assert
// needs @types/node for type checking, so these few are written here.

export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

function show(value: unknown): string {
  return Deno.inspect(value, { depth: 8, colors: false, strAbbreviateSize: 400 });
}

function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date) return a.getTime() === (b as Date).getTime();
  if (ArrayBuffer.isView(a)) {
    const left = Array.from(a as unknown as ArrayLike<unknown>);
    const right = Array.from(b as unknown as ArrayLike<unknown>);
    return equal(left, right);
  }
  if (a instanceof Map) {
    const other = b as Map<unknown, unknown>;
    if (a.size !== other.size) return false;
    const left = [...a.entries()];
    const right = [...other.entries()];
    return left.every(([key, value], i) => equal(key, right[i][0]) && equal(value, right[i][1]));
  }
  if (a instanceof Set) return equal([...a], [...(b as Set<unknown>)]);
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((value, i) => equal(value, other[i]));
  }
  const leftKeys = Object.keys(a);
  const rightKeys = Object.keys(b);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every((key) =>
    Object.prototype.hasOwnProperty.call(b, key) &&
    equal((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])
  );
}

export function assertEquals(actual: unknown, expected: unknown, message?: string): void {
  if (!equal(actual, expected)) {
    throw new AssertionError(`${message ? `${message}: ` : ""}expected ${show(expected)}, got ${show(actual)}`);
  }
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
