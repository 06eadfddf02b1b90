/**
 * The checks behind `resolveOptions`: each reads one field, records what is wrong with it
 * under its dotted path, and returns the value (or the default) typed. Hand-written rather
 * than a schema library so that importing the driver does not load one (zod with its locales
 * was 450 KB of the 670 KB bundle and about 8 MB of every process's memory, issue #17).
 */
export class OptionIssues {
  readonly messages: string[] = [];

  add(path: string, message: string): void {
    this.messages.push(`${path || "(options)"}: ${message}`);
  }
}

/** A plain object's fields, `{}` when absent, or undefined (with an issue) when not an object. */
export function objectAt(issues: OptionIssues, path: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return {};
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  issues.add(path, `expected an object, got ${describe(value)}`);
  return undefined;
}

interface NumberRule {
  integer?: boolean;
  min?: number;
  max?: number;
}

export function numberAt(issues: OptionIssues, path: string, value: unknown, rule: NumberRule): number | undefined;
export function numberAt(issues: OptionIssues, path: string, value: unknown, rule: NumberRule, fallback: number): number;
export function numberAt(issues: OptionIssues, path: string, value: unknown, rule: NumberRule, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    issues.add(path, `expected a finite number, got ${describe(value)}`);
  } else if (rule.integer && !Number.isSafeInteger(value)) {
    issues.add(path, `expected an integer, got ${value}`);
  } else if (rule.min !== undefined && value < rule.min) {
    issues.add(path, `must be >= ${rule.min}, got ${value}`);
  } else if (rule.max !== undefined && value > rule.max) {
    issues.add(path, `must be <= ${rule.max}, got ${value}`);
  }
  return value as number;
}

/** A string of at least `minLength` characters. */
export function stringAt(issues: OptionIssues, path: string, value: unknown, minLength = 0): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") issues.add(path, `expected a string, got ${describe(value)}`);
  else if (value.length < minLength) issues.add(path, `must have at least ${minLength} character(s)`);
  return value as string;
}

export function booleanAt(issues: OptionIssues, path: string, value: unknown): boolean | undefined;
export function booleanAt(issues: OptionIssues, path: string, value: unknown, fallback: boolean): boolean;
export function booleanAt(issues: OptionIssues, path: string, value: unknown, fallback?: boolean): boolean | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") issues.add(path, `expected a boolean, got ${describe(value)}`);
  return value as boolean;
}

/** One of the listed values (compared with ===). */
export function oneOfAt<T extends string | number>(issues: OptionIssues, path: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) {
    issues.add(path, `expected one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}, got ${describe(value)}`);
  }
  return value as T;
}

/** An array whose every element passes `check` (called with the element's path). */
export function arrayAt<T>(
  issues: OptionIssues,
  path: string,
  value: unknown,
  check: (path: string, element: unknown) => T,
): T[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    issues.add(path, `expected an array, got ${describe(value)}`);
    return undefined;
  }
  return value.map((element, i) => check(`${path}.${i}`, element));
}

/** Copies the entries whose value is not undefined, so absent options stay absent. */
export function defined<T extends object>(fields: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as T;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  return typeof value;
}
