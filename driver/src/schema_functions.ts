/**
 * User-defined functions and aggregates as the DataStax driver describes them (`SchemaFunction`,
 * `Aggregate`: the same fields in the same order), read from `system_schema.functions` and
 * `system_schema.aggregates`, with their types parsed by the one type parser.
 */
import { ArgumentError } from "./errors.ts";
import type { DataTypeInfo } from "./metadata.ts";
import { dataTypes } from "./types.ts";

/** One `system_schema.functions` row, described. */
export class SchemaFunction {
  name: string | null = null;
  keyspaceName: string | null = null;
  /** The argument types as CQL text: what `getFunction`'s signature is matched against. */
  signature: string[] | null = null;
  argumentNames: string[] | null = null;
  argumentTypes: DataTypeInfo[] | null = null;
  body: string | null = null;
  calledOnNullInput: boolean | null = null;
  language: string | null = null;
  returnType: DataTypeInfo | null = null;
  deterministic: boolean | null = null;
  monotonic: boolean | null = null;
  monotonicOn: string[] | null = null;
}

/** One `system_schema.aggregates` row, described. */
export class Aggregate {
  name: string | null = null;
  keyspaceName: string | null = null;
  signature: string[] | null = null;
  argumentTypes: DataTypeInfo[] | null = null;
  stateFunction: string | null = null;
  stateType: DataTypeInfo | null = null;
  finalFunction: string | null = null;
  /** The initial condition as CQL text, as the server keeps it (`initCondition` is the same). */
  initConditionRaw: string | null = null;
  initCondition: string | null = null;
  returnType: DataTypeInfo | null = null;
  deterministic: boolean | null = null;
}

type Row = Record<string, unknown>;
type Describe = (cqlType: string) => DataTypeInfo;

const texts = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function describeFunction(row: Row, describe: Describe): SchemaFunction {
  const f = new SchemaFunction();
  f.name = text(row.function_name);
  f.keyspaceName = text(row.keyspace_name);
  f.signature = texts(row.argument_types);
  f.argumentNames = texts(row.argument_names);
  f.body = text(row.body);
  f.calledOnNullInput = row.called_on_null_input === true;
  f.language = text(row.language);
  f.deterministic = row.deterministic === true;
  f.monotonic = row.monotonic === true;
  f.monotonicOn = texts(row.monotonic_on);
  f.argumentTypes = f.signature.map(describe);
  f.returnType = describe(String(row.return_type));
  return f;
}

export function describeAggregate(row: Row, describe: Describe): Aggregate {
  const a = new Aggregate();
  a.name = text(row.aggregate_name);
  a.keyspaceName = text(row.keyspace_name);
  a.signature = texts(row.argument_types);
  a.stateFunction = text(row.state_func);
  a.finalFunction = text(row.final_func);
  a.initConditionRaw = text(row.initcond);
  a.initCondition = a.initConditionRaw;
  a.deterministic = row.deterministic === true;
  a.argumentTypes = a.signature.map(describe);
  a.stateType = describe(String(row.state_type));
  a.returnType = describe(String(row.return_type));
  return a;
}

/** DataStax's names of the protocol's type codes (its `types.getDataTypeNameByCode`): `dataTypes` inverted. */
const NAMES_BY_CODE: ReadonlyMap<number, string> = new Map(Object.entries(dataTypes).map(([name, code]) => [code, name]));

/** DataStax's `types.getDataTypeNameByCode({ code, info })`: `list<int>`, `map<text, varchar>`. */
export function dataTypeNameByCode(item: { code: number; info?: unknown; customTypeName?: string }, depth = 0): string {
  const name = typeof item?.code === "number" ? NAMES_BY_CODE.get(item.code) : undefined;
  if (name === undefined) throw new ArgumentError(typeof item?.code === "number" ? `Type with code ${item.code} not found` : "Invalid signature type definition");
  if (!item.info) return name;
  if (depth >= 8) throw new ArgumentError("Invalid signature type definition: nested too deeply");
  if (item.customTypeName === "vector" && Array.isArray(item.info)) return `vector<${dataTypeNameByCode(item.info[0], depth + 1)}, ${item.info[1]}>`;
  const inner = Array.isArray(item.info) ? item.info : [item.info];
  return `${name}<${inner.map((t) => dataTypeNameByCode(t as { code: number; info?: unknown }, depth + 1)).join(", ")}>`;
}

/** A signature element as CQL text: a type name as given, or DataStax's `{ code, info }` named as DataStax names it. */
export function signatureText(item: string | { code: number; info?: unknown }): string {
  return typeof item === "string" ? item : dataTypeNameByCode(item);
}
