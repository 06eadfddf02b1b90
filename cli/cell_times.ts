// Round trips that keep time: `unload --with-writetime --with-ttl` writes, for each regular
// column, fields named `writetime(c)` (µs) and `ttl(c)` (s); `load` finds those fields in a
// CSV header and hands them to the core, which writes each cell back with its own write
// time and TTL (core/src/bulk/cell_times.rs).

import { quoteIdentifier, type TableColumn } from "./load/table.ts";

const FIELD = /^(writetime|ttl)\((.+)\)$/i;

/**
 * Whether WRITETIME() and TTL() of a column are single numbers: regular columns that are
 * not counters and not multi-cell (non-frozen) collections or UDTs.
 */
export function hasCellTime(column: TableColumn): boolean {
  if (
    column.kind !== "regular" ||
    column.type.kind === "counter"
  ) return false;
  const multiCell = ["list", "set", "map", "udt"].includes(column.type.kind);
  return !multiCell || column.typeText.startsWith("frozen<");
}

/** The extra SELECT expressions of an unload. */
export function cellTimeSelection(
  columns: TableColumn[],
  options: { writetime: boolean; ttl: boolean },
): { expressions: string[] } {
  const expressions: string[] = [];
  for (const column of columns.filter(hasCellTime)) {
    const name = quoteIdentifier(column.name);
    if (options.writetime) {
      expressions.push(
        `WRITETIME(${name}) AS ${quoteIdentifier(`writetime(${column.name})`)}`,
      );
    }
    if (options.ttl) {
      expressions.push(
        `TTL(${name}) AS ${quoteIdentifier(`ttl(${column.name})`)}`,
      );
    }
  }
  return { expressions };
}

/** One column's cell-time fields, as CSV positions. */
export interface CellTimeFields {
  column: string;
  writetime?: number;
  ttl?: number;
}

/**
 * The header's `writetime(c)` and `ttl(c)` fields of columns that have cell times: the
 * header names they take (not columns) and the fields by column.
 */
export function cellTimeFields(
  header: string[],
  columns: TableColumn[],
): { names: string[]; cells: CellTimeFields[] } {
  const names: string[] = [];
  const byColumn = new Map<string, CellTimeFields>();
  header.forEach((field, position) => {
    const match = FIELD.exec(field.trim());
    if (match === null) return;
    const column = columns.find((c) => c.name === match[2]) ??
      columns.find((c) => c.name.toLowerCase() === match[2].toLowerCase());
    if (column === undefined || !hasCellTime(column)) return;
    names.push(field);
    const entry = byColumn.get(column.name) ?? { column: column.name };
    if (match[1].toLowerCase() === "writetime") entry.writetime = position;
    else entry.ttl = position;
    byColumn.set(column.name, entry);
  });
  return { names, cells: [...byColumn.values()] };
}
