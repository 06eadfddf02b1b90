/**
 * Which of a model's tables take a document, as DataStax's object-selector.js decides: the keys a
 * SELECT, INSERT, UPDATE or DELETE needs. A SELECT reads the first table that can answer it; a
 * mutation writes every table it fits. None: DataStax's Error and message, so a document DataStax
 * refuses is refused before it reaches the server.
 */
import type { TableMetadata } from "../src/metadata.ts";
import type { Prop } from "./mapping-statements.ts";

type Match = "all" | "none" | "some";

function keysIncluded(keys: Array<{ name: string }>, props: Prop[]): Match {
  if (keys.length === 0) return "all";
  const matches = props.filter((p) => keys.some((k) => k.name === p.column)).length;
  return matches === 0 ? "none" : matches === keys.length ? "all" : "some";
}

const columnsOf = (props: Prop[]) => props.map((p) => p.column).join(",");
const staticCount = (t: TableMetadata) => t.columns.filter((c) => c.isStatic).length;
const inTable = (t: TableMetadata, props: Prop[]) => props.every((p) => t.columnsByName[p.column] !== undefined);

export function forSelect(tables: TableMetadata[], where: Prop[], fields: string[], orderBy: Array<[string, string]>, allKeys: boolean): TableMetadata {
  const fits = (t: TableMetadata) => {
    const isKey = (p: Prop) => t.partitionKeys.some((c) => c.name === p.column) || t.clusteringKeys.some((c) => c.name === p.column);
    return keysIncluded(t.partitionKeys, where) === "all" &&
      (!allKeys || keysIncluded(t.clusteringKeys, where) === "all") &&
      (where.length <= t.partitionKeys.length || where.every(isKey)) &&
      fields.every((f) => t.columnsByName[f] !== undefined) &&
      orderBy.every(([column], i) => t.clusteringKeys[i]?.name === column);
  };
  const table = tables.find(fits);
  if (table) return table;
  let message = `No table matches the filter (${allKeys ? "all PKs have to be specified" : "PKs"}): [${columnsOf(where)}]`;
  if (fields.length > 0) message += `; fields: [${fields.join(",")}]`;
  if (orderBy.length > 0) message += `; orderBy: [${orderBy.map(([c]) => c).join(",")}]`;
  throw new Error(message);
}

export function forInsert(tables: TableMetadata[], props: Prop[]): TableMetadata[] {
  const fits = (t: TableMetadata) => {
    const clustering = keysIncluded(t.clusteringKeys, props);
    const statics = staticCount(t);
    return keysIncluded(t.partitionKeys, props) === "all" &&
      (clustering === "all" || (clustering === "none" && statics > 0 && props.length === t.partitionKeys.length + statics));
  };
  const found = tables.filter(fits);
  if (found.length === 0) throw new Error(`No table matches (all PKs have to be specified) fields: [${columnsOf(props)}]`);
  return found;
}

export function forUpdate(tables: TableMetadata[], props: Prop[], when: Prop[]): TableMetadata[] {
  const fits = (t: TableMetadata) => {
    const clustering = keysIncluded(t.clusteringKeys, props);
    const hasStatic = staticCount(t) > 0;
    const applicable = props.filter((p) => t.columnsByName[p.column] !== undefined).length;
    const keys = t.partitionKeys.length + t.clusteringKeys.length;
    return keysIncluded(t.partitionKeys, props) === "all" && clustering !== "some" &&
      (clustering !== "none" || hasStatic) &&
      (applicable > keys || (hasStatic && applicable > t.partitionKeys.length)) &&
      inTable(t, when);
  };
  const found = tables.filter(fits);
  if (found.length > 0) return found;
  let message = `No table matches (all PKs and columns to set have to be specified) fields: [${columnsOf(props)}]`;
  if (when.length > 0) message += `; condition: [${columnsOf(when)}]`;
  throw new Error(message);
}

export function forDelete(tables: TableMetadata[], props: Prop[], when: Prop[]): TableMetadata[] {
  const columns = props.map((p) => p.column);
  const fits = (t: TableMetadata) => [...t.partitionKeys, ...t.clusteringKeys].every((k) => columns.includes(k.name)) && inTable(t, when);
  const found = tables.filter(fits);
  if (found.length > 0) return found;
  let message = `No table matches (all PKs have to be specified) fields: [${columns.join(",")}]`;
  if (when.length > 0) message += `; condition: [${columnsOf(when)}]`;
  throw new Error(message);
}
