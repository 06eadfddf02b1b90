// `load --query`: a user's INSERT or UPDATE with named bind markers (`:name`). The markers
// are found in the text, their types taken from the target table's columns of the same
// name (or from their place: USING TTL :t is an int, USING TIMESTAMP :t a bigint), and input
// fields are matched to markers the way they are matched to columns otherwise.

import { parseCqlType } from "../../driver/mod.ts";
import { UsageError } from "../errors.ts";
import { parseTableName, type TableColumn, type TableSchema } from "./table.ts";

export interface NamedMarker {
  name: string;
  /** The text before the marker, to recognise USING TTL/TIMESTAMP. */
  context: string;
}

/** The named markers of a statement in order of first appearance, outside strings and comments. */
export function findNamedMarkers(query: string): NamedMarker[] {
  const markers: NamedMarker[] = [];
  const seen = new Set<string>();
  let i = 0;
  while (i < query.length) {
    const char = query[i];
    const next = query[i + 1];
    if (char === "'" || (char === "$" && next === "$")) {
      const close = char === "'" ? query.indexOf("'", i + 1) : query.indexOf("$$", i + 2);
      i = close < 0 ? query.length : close + (char === "'" ? 1 : 2);
    } else if (char === '"') {
      const close = query.indexOf('"', i + 1);
      i = close < 0 ? query.length : close + 1;
    } else if ((char === "-" && next === "-") || (char === "/" && next === "/")) {
      const newline = query.indexOf("\n", i);
      i = newline < 0 ? query.length : newline;
    } else if (char === "/" && next === "*") {
      const close = query.indexOf("*/", i + 2);
      i = close < 0 ? query.length : close + 2;
    } else if (char === "?") {
      throw new UsageError("--query: use named bind markers (:name) so fields can be matched to them, not '?'");
    } else if (char === ":" && next !== undefined && /[A-Za-z_"]/.test(next)) {
      let name: string;
      let end: number;
      if (next === '"') {
        const close = query.indexOf('"', i + 2);
        if (close < 0) throw new UsageError("--query: unterminated quoted bind marker name");
        name = query.slice(i + 2, close);
        end = close + 1;
      } else {
        const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(i + 1))!;
        name = match[0].toLowerCase();
        end = i + 1 + match[0].length;
      }
      if (!seen.has(name)) {
        seen.add(name);
        markers.push({ name, context: query.slice(Math.max(0, i - 20), i) });
      }
      i = end;
    } else {
      i++;
    }
  }
  return markers;
}

const TARGET =
  /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\b[^;]*?\bFROM)\s+((?:"(?:[^"]|"")+"|[A-Za-z0-9_]+)(?:\s*\.\s*(?:"(?:[^"]|"")+"|[A-Za-z0-9_]+))?)/i;

/** The table an INSERT, UPDATE or DELETE writes to. */
export function targetTableOf(query: string, defaultKeyspace: string | undefined): { keyspace: string; table: string } {
  const match = TARGET.exec(query);
  if (!match) throw new UsageError("--query must be an INSERT, UPDATE or DELETE statement");
  return parseTableName(match[1].replace(/\s*\.\s*/, "."), defaultKeyspace);
}

function findColumn(schema: TableSchema, name: string): TableColumn | undefined {
  return schema.columns.find((column) => column.name === name) ??
    schema.columns.find((column) => column.name.toLowerCase() === name.toLowerCase());
}

/**
 * The markers as the columns of a pseudo-table that fields are laid out against: each has
 * its column's type (and key kind, so a null key is refused before the server sees it).
 */
export function markerSchema(schema: TableSchema, markers: NamedMarker[]): TableSchema {
  const columns = markers.map((marker): TableColumn => {
    if (/\bTTL\s*$/i.test(marker.context)) {
      return { name: marker.name, kind: "regular", position: -1, type: parseCqlType("int"), typeText: "int" };
    }
    if (/\bTIMESTAMP\s*$/i.test(marker.context)) {
      return { name: marker.name, kind: "regular", position: -1, type: parseCqlType("bigint"), typeText: "bigint" };
    }
    const column = findColumn(schema, marker.name);
    if (column === undefined) {
      throw new UsageError(
        `--query: cannot tell the type of :${marker.name}: name each marker after a column of ` +
          `${schema.keyspace}.${schema.table} (${schema.columns.map((c) => c.name).join(", ")})`,
      );
    }
    return { ...column, name: marker.name };
  });
  return { keyspace: schema.keyspace, table: schema.table, columns };
}

/**
 * Whether applying the statement twice has the effect of applying it once, which is what
 * makes retries and re-applying rows after a crash safe: not for counter updates, list
 * appends and prepends, or lightweight transactions.
 */
export function isIdempotentQuery(query: string, schema: TableSchema): boolean {
  if (/\bIF\b/i.test(query.replace(/'(?:[^']|'')*'/g, "''"))) return false;
  const accumulating = schema.columns.filter((column) =>
    column.type.kind === "list" || column.type.kind === "counter"
  );
  for (const column of accumulating) {
    const name = `(?:${column.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|"${column.name.replace(/"/g, '""')}")`;
    const selfReference = new RegExp(`${name}\\s*=\\s*${name}\\s*[+-]|[+-]\\s*${name}\\s*(?:,|\\bWHERE\\b|$)`, "i");
    if (selfReference.test(query)) return false;
  }
  return true;
}
