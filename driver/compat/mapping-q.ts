/**
 * `mapping.q`: the DataStax mapper's query operators and assignments, and the CQL each becomes.
 * A property's value in `find`'s document or in `when` may be an operator (`q.gte(d)` reads
 * `"col" >= ?`; `q.and(q.gt(a), q.lt(b))` reads `"col" > ? AND "col" < ?`); in `update`'s document
 * an assignment (`q.incr(1)` reads `"col" = "col" + ?`, `q.prepend([x])` reads `"col" = ? + "col"`).
 * The text and the parameters' order are DataStax's (its query-generator), so a statement prepared
 * from either driver is the same statement, and a server error's `query` reads the same.
 */
import { ArgumentError } from "../src/errors.ts";

/** A comparison: `key` is the CQL operator; `and` holds two operators as its value. */
export class QueryOperator {
  constructor(
    readonly key: string,
    readonly value: unknown,
    // Undefined unless given, as DataStax's (its objects print so).
    readonly hasChildValues?: boolean,
    readonly isInOperator?: boolean,
  ) {}
}

/** `"col" = "col" SIGN ?`, or `"col" = ? SIGN "col"` when inverted (a list prepend). */
export class QueryAssignment {
  // Fields set in DataStax's order (sign, value, inverted): its objects print so.
  readonly sign: string;
  readonly value: unknown;
  readonly inverted: boolean;
  constructor(sign: string, value: unknown, inverted?: boolean) {
    this.sign = sign;
    this.value = value;
    this.inverted = !!inverted;
  }
}

// The classes under other names, for the namespace whose type `QueryOperator` hides the class's.
type Operator = QueryOperator;
const Operator = QueryOperator;
type Assignment = QueryAssignment;
const Assignment = QueryAssignment;

/** A namespace, not an object, so that `mapping.q.QueryOperator` names a type, as in DataStax's declarations. */
// deno-lint-ignore no-namespace
export namespace q {
  /** What DataStax declares every `q` function to return. */
  export type QueryOperator = Operator | Assignment;

  export function in_(arr: unknown): QueryOperator {
    if (!Array.isArray(arr)) throw new ArgumentError("IN operator supports only Array values");
    return new Operator("IN", arr, false, true);
  }
  export const gt = (value: unknown): QueryOperator => new Operator(">", value);
  export const gte = (value: unknown): QueryOperator => new Operator(">=", value);
  export const lt = (value: unknown): QueryOperator => new Operator("<", value);
  export const lte = (value: unknown): QueryOperator => new Operator("<=", value);
  export const notEq = (value: unknown): QueryOperator => new Operator("!=", value);
  export const and = (condition1: unknown, condition2: unknown): QueryOperator => new Operator("AND", [condition1, condition2], true);
  export const incr = (value: unknown): QueryOperator => new Assignment("+", value);
  export const decr = (value: unknown): QueryOperator => new Assignment("-", value);
  export const append = (value: unknown): QueryOperator => new Assignment("+", value);
  export const prepend = (value: unknown): QueryOperator => new Assignment("+", value, true);
  export const remove = (value: unknown): QueryOperator => new Assignment("-", value);
}

/** A column name as DataStax's mapper writes it: always quoted (a quote in it doubled). */
export const quoteColumn = (name: string): string => `"${name.replaceAll('"', '""')}"`;

type Convert = ((value: unknown) => unknown) | undefined;

/** A piece of a statement: its CQL and the parameters its markers take, in order. */
export interface Clause {
  cql: string;
  params: unknown[];
}

/**
 * `value` as a condition on `column`, for WHERE and IF. `convert` is the column's `fromModel`:
 * applied to an operator's value, to each element of an IN list, to each side of an `and`.
 */
export function condition(column: string, value: unknown, convert: Convert): Clause {
  const c = quoteColumn(column);
  if (!(value instanceof QueryOperator)) return { cql: `${c} = ?`, params: [convert ? convert(value) : value] };
  if (value.hasChildValues) {
    const [a, b] = (value.value as unknown[]).map((v) => condition(column, v, convert));
    return { cql: `${a.cql} ${value.key} ${b.cql}`, params: [...a.params, ...b.params] };
  }
  let param = value.value;
  if (convert) param = value.isInOperator ? (param as unknown[]).map((v) => convert(v)) : convert(param);
  return { cql: `${c} ${value.key} ?`, params: [param] };
}

/** `value` assigned to `column` in UPDATE's SET. */
export function assignment(column: string, value: unknown, convert: Convert): Clause {
  const c = quoteColumn(column);
  const isAssignment = value instanceof QueryAssignment;
  const raw = isAssignment ? value.value : value;
  const params = [convert ? convert(raw) : raw];
  if (!isAssignment) return { cql: `${c} = ?`, params };
  return { cql: value.inverted ? `${c} = ? ${value.sign} ${c}` : `${c} = ${c} ${value.sign} ?`, params };
}

/** The clauses joined by `separator`, their parameters concatenated. */
export function join(clauses: Clause[], separator: string): Clause {
  return { cql: clauses.map((x) => x.cql).join(separator), params: clauses.flatMap((x) => x.params) };
}
