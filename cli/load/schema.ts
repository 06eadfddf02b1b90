// Reads a table's columns from system_schema; their types are parsed by the driver's
// type parser (the core converts values, so no UDT definitions are needed here).

import { parseCqlType } from "../../driver/mod.ts";
import { CliFailure } from "../errors.ts";
import type { QueryExecutor } from "../query.ts";
import { type ColumnKind, orderColumns, type TableSchema } from "./table.ts";

const COLUMN_KINDS: ReadonlySet<string> = new Set(["partition_key", "clustering", "regular", "static"]);

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

  return { keyspace, table, columns: orderColumns(parsed) };
}
