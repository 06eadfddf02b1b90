/**
 * The statements the mapper runs for a document, alone or in a mapper batch: their CQL, their
 * parameters and DataStax's `isIdempotent`/counter flags (query-generator.js and
 * mapping-handler.js: an insert is idempotent but for IF NOT EXISTS; an update but for a list
 * assignment, a counter table or a condition; a delete but for a condition). The keyspace and
 * table are quoted only where CQL needs it (DataStax never quotes them, so for the names it can
 * use, the text is its text). Which documents a table can take is mapping-selector.ts's check.
 */
import { quoteIdentifier } from "../src/codec/mod.ts";
import type { TableMetadata } from "../src/metadata.ts";
import { assignment, type Clause, condition, join, QueryAssignment, quoteColumn } from "./mapping-q.ts";

/** A document's property that is a column: the column, the value as given, its `fromModel`. */
export interface Prop {
  column: string;
  value: unknown;
  convert?: (value: unknown) => unknown;
}

export interface Statement {
  query: string;
  params: unknown[];
  isIdempotent: boolean;
  /** Set by updates only, as DataStax's: a mapper batch is a counter batch as its last statement says. */
  isCounter?: boolean;
}

// DataStax's data type codes (types.dataTypes) of the columns that make an update non-idempotent.
const LIST = 0x20;
const COUNTER = 0x05;

const qualified = (t: TableMetadata) => `${quoteIdentifier(t.keyspace)}.${quoteIdentifier(t.name)}`;
const primaryKey = (t: TableMetadata) => new Set([...t.partitionKeys, ...t.clusteringKeys].map((c) => c.name));
const conditions = (props: Prop[]): Clause => join(props.map((p) => condition(p.column, p.value, p.convert)), " AND ");
/**
 * An UPDATE's or DELETE's WHERE, as DataStax writes it: `"key" = ?` for every key, whatever
 * operator the document gives (its value, or values, are still taken out as parameters).
 */
const keysEqual = (props: Prop[]): Clause =>
  join(props.map((p) => ({ cql: `${quoteColumn(p.column)} = ?`, params: condition(p.column, p.value, p.convert).params })), " AND ");

/** ` IF EXISTS` or ` IF <when>`; DataStax refuses both at once with a plain Error. */
function ifClause(ifExists: boolean | undefined, when: Prop[]): Clause {
  if (ifExists && when.length > 0) throw new Error("Both when and ifExists conditions can not be applied to the same statement");
  if (ifExists) return { cql: " IF EXISTS", params: [] };
  if (when.length === 0) return { cql: "", params: [] };
  const c = conditions(when);
  return { cql: ` IF ${c.cql}`, params: c.params };
}

export interface SelectInfo {
  fields?: string[];
  orderBy: Array<[string, string]>;
  limit?: number;
}

export function select(t: TableMetadata, where: Prop[], info: SelectInfo): Statement {
  let query = `SELECT ${info.fields ? info.fields.map(quoteColumn).join(", ") : "*"} FROM ${qualified(t)}`;
  const c = conditions(where);
  if (where.length > 0) query += ` WHERE ${c.cql}`;
  if (info.orderBy.length > 0) query += ` ORDER BY ${info.orderBy.map(([col, dir]) => `${quoteColumn(col)} ${dir}`).join(", ")}`;
  const params = c.params;
  if (typeof info.limit === "number") {
    query += " LIMIT ?";
    params.push(info.limit);
  }
  return { query, params, isIdempotent: true };
}

/** The properties that are columns of the table: DataStax's mutations leave out the others. */
const columnsIn = (t: TableMetadata, props: Prop[]) => props.filter((p) => t.columnsByName[p.column] !== undefined);

export function insert(t: TableMetadata, props: Prop[], info: { ttl?: number; ifNotExists?: boolean }): Statement {
  const cols = columnsIn(t, props);
  let query = `INSERT INTO ${qualified(t)} (${cols.map((p) => quoteColumn(p.column)).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`;
  // As DataStax's: an operator's value(s) are taken out, as in a WHERE (its value getter is shared).
  const params = cols.flatMap((p) => condition(p.column, p.value, p.convert).params);
  if (info.ifNotExists) query += " IF NOT EXISTS";
  if (typeof info.ttl === "number") {
    query += " USING TTL ?";
    params.push(info.ttl);
  }
  return { query, params, isIdempotent: !info.ifNotExists };
}

export function update(t: TableMetadata, props: Prop[], when: Prop[], info: { ttl?: number; ifExists?: boolean }): Statement {
  const keys = primaryKey(t);
  const cols = columnsIn(t, props);
  const where = cols.filter((p) => keys.has(p.column));
  const set = cols.filter((p) => !keys.has(p.column));
  const code = (p: Prop) => t.columnsByName[p.column].type.code;
  const isCounter = cols.some((p) => code(p) === COUNTER);
  const appendsToList = cols.some((p) => code(p) === LIST && p.value instanceof QueryAssignment);
  const cond = ifClause(info.ifExists, when);
  const ttl = typeof info.ttl === "number";
  const s = join(set.map((p) => assignment(p.column, p.value, p.convert)), ", ");
  const w = keysEqual(where);
  return {
    query: `UPDATE ${qualified(t)}${ttl ? " USING TTL ?" : ""} SET ${s.cql} WHERE ${w.cql}${cond.cql}`,
    params: [...(ttl ? [info.ttl] : []), ...s.params, ...w.params, ...cond.params],
    isIdempotent: !isCounter && !appendsToList && cond.cql === "",
    isCounter,
  };
}

export function remove(t: TableMetadata, props: Prop[], when: Prop[], info: { ifExists?: boolean; deleteOnlyColumns?: boolean }): Statement {
  const keys = primaryKey(t);
  const cols = columnsIn(t, props);
  const where = cols.filter((p) => keys.has(p.column));
  const only = info.deleteOnlyColumns ? cols.filter((p) => !keys.has(p.column)).map((p) => quoteColumn(p.column)) : [];
  const cond = ifClause(info.ifExists, when);
  const w = keysEqual(where);
  return {
    query: `DELETE${only.length > 0 ? ` ${only.join(", ")}` : ""} FROM ${qualified(t)} WHERE ${w.cql}${cond.cql}`,
    params: [...w.params, ...cond.params],
    isIdempotent: cond.cql === "",
  };
}
