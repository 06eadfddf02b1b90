// Reads a table's columns and the user-defined types they use from system_schema.

import { type CqlType, parseCqlType } from "../cql_type.ts";
import { CliFailure } from "../errors.ts";
import type { QueryExecutor } from "../query.ts";
import { attachUdtDefinitions, type ColumnKind, orderColumns, type TableSchema, type UdtDefinition } from "./table.ts";

const COLUMN_KINDS: ReadonlySet<string> = new Set(["partition_key", "clustering", "regular", "static"]);

function usesUdt(type: CqlType): boolean {
  switch (type.kind) {
    case "udt":
      return true;
    case "list":
    case "set":
    case "vector":
      return usesUdt(type.element);
    case "map":
      return usesUdt(type.key) || usesUdt(type.value);
    case "tuple":
      return type.elements.some(usesUdt);
    default:
      return false;
  }
}

export async function readTableSchema(executor: QueryExecutor, keyspace: string, table: string): Promise<TableSchema> {
  const result = await executor.execute(
    "SELECT column_name, kind, position, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
    [keyspace, table],
    { prepare: true },
  );
  if (result.rows.length === 0) throw new CliFailure(`table ${keyspace}.${table} does not exist`);
  const parsed = result.rows.map((row) => {
    const typeText = String(row.type);
    const kind = String(row.kind);
    if (!COLUMN_KINDS.has(kind)) throw new CliFailure(`column ${String(row.column_name)} has unknown kind '${kind}'`);
    return {
      name: String(row.column_name),
      kind: kind as ColumnKind,
      position: Number(row.position),
      type: parseCqlType(typeText),
      typeText,
    };
  });

  let definitions = new Map<string, UdtDefinition>();
  if (parsed.some((column) => usesUdt(column.type))) definitions = await readUdtDefinitions(executor, keyspace);
  const columns = parsed.map((column) => ({ ...column, type: attachUdtDefinitions(column.type, definitions) }));
  return { keyspace, table, columns: orderColumns(columns) };
}

async function readUdtDefinitions(executor: QueryExecutor, keyspace: string): Promise<Map<string, UdtDefinition>> {
  const result = await executor.execute(
    "SELECT type_name, field_names, field_types FROM system_schema.types WHERE keyspace_name = ?",
    [keyspace],
    { prepare: true },
  );
  const definitions = new Map<string, UdtDefinition>();
  for (const row of result.rows) {
    const fieldNames = (row.field_names as string[] | null) ?? [];
    const fieldTypes = ((row.field_types as string[] | null) ?? []).map((text) => parseCqlType(text));
    definitions.set(String(row.type_name), { name: String(row.type_name), fieldNames, fieldTypes });
  }
  return definitions;
}
