// Reads a table's columns from system_schema; their types are parsed by the driver's
// type parser (the core converts values, so no UDT definitions are needed here).

import { parseCqlType } from "../../driver/mod.ts";
import { CliFailure } from "../errors.ts";
import type { QueryExecutor } from "../query.ts";
import { type ColumnKind, orderColumns, type TableSchema } from "./table.ts";

const COLUMN_KINDS: ReadonlySet<string> = new Set(["partition_key", "clustering", "regular", "static"]);

/** A column as system_schema.columns has it (the type as its CQL text); none when the table does not exist. */
export interface SchemaColumn {
  name: string;
  kind: string;
  position: number;
  type: string;
}

export async function readSchemaColumns(
  executor: QueryExecutor,
  keyspace: string,
  table: string,
): Promise<SchemaColumn[]> {
  const result = await executor.execute(
    "SELECT column_name, kind, position, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
    [keyspace, table],
    { prepare: true },
  );
  return result.rows.map((row) => ({
    name: String(row.column_name),
    kind: String(row.kind),
    position: Number(row.position),
    type: String(row.type),
  }));
}

export async function readTableSchema(executor: QueryExecutor, keyspace: string, table: string): Promise<TableSchema> {
  const rows = await readSchemaColumns(executor, keyspace, table);
  if (rows.length === 0) throw new CliFailure(`table ${keyspace}.${table} does not exist`);
  const parsed = rows.map((row) => {
    if (!COLUMN_KINDS.has(row.kind)) throw new CliFailure(`column ${row.name} has unknown kind '${row.kind}'`);
    return {
      name: row.name,
      kind: row.kind as ColumnKind,
      position: row.position,
      type: parseCqlType(row.type),
      typeText: row.type,
    };
  });

  return { keyspace, table, columns: orderColumns(parsed) };
}
