/**
 * The shared bulk vectors (tests/vectors/bulk/cases.json, also run by core/tests/bulk.rs)
 * through the path users hit: `client.bulkLoad` with `dryRun`, a statement prepared on the
 * real Cassandra against a table of each case's columns. Every verdict is compared exactly:
 * how many rows are good, and for each bad row its line, offsets, bytes, column or field or
 * byte, and reason; a case that stops the load stops it with its message. (The rows' value
 * bytes are compared by the Rust test of the same file; a dry run sends none.)
 */
import { assert, assertEquals, client } from "./helpers.ts";
import type { BadRowRecord, BulkLoadOptions, Client } from "../../driver/deno.ts";

interface Expected {
  line: number;
  values?: unknown[];
  bad?: string;
  column?: string;
  offset?: number;
  end_offset?: number;
  raw?: string;
  raw_hex?: string;
}

interface Case {
  name: string;
  format: "csv" | "jsonl";
  columns: Array<[string, string]>;
  input?: string;
  input_hex?: string;
  csv?: { delimiter?: string; quote?: string; escape?: string; comment?: string; header?: boolean; trim?: boolean; max_record_bytes?: number };
  jsonl?: { max_record_bytes?: number };
  mapping?: string;
  constants?: Array<[string, string]>;
  pk?: number[];
  null_markers?: string[];
  ignore_unknown?: boolean;
  null_to_unset?: boolean;
  max_errors?: number;
  error?: string;
  expect: Expected[];
}

const KS = "engine_bulk_vectors";
const cases: Case[] = JSON.parse(await Deno.readTextFile(new URL("../vectors/bulk/cases.json", import.meta.url)));

const unhex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (byte) => parseInt(byte, 16));
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The vectors' type text in CQL: UDTs (`udt<ks.addr>{street:text,zip:int}`) are created in the keyspace. */
async function cqlType(c: Client, type: string): Promise<string> {
  const udt = /^udt<[^.]+\.([a-z_]+)>\{(.*)\}$/.exec(type);
  if (udt !== null) {
    const fields = udt[2].split(",").map((field) => field.replace(":", " "));
    await c.execute(`CREATE TYPE IF NOT EXISTS ${KS}.${udt[1]} (${fields.join(", ")})`);
    return `frozen<${udt[1]}>`;
  }
  return type.startsWith("tuple<") ? `frozen<${type}>` : type;
}

/** A table of the case's columns (keyed by its partition key, else by a time UUID) and its INSERT. */
async function statementFor(c: Client, index: number, vector: Case): Promise<string> {
  const table = `${KS}.v${index}`;
  const columns = await Promise.all(vector.columns.map(async ([name, type]) => `${quote(name)} ${await cqlType(c, type)}`));
  const key = vector.pk !== undefined ? `PRIMARY KEY ((${vector.pk.map((i) => quote(vector.columns[i][0])).join(", ")}))` : null;
  await c.execute(`DROP TABLE IF EXISTS ${table}`);
  await c.execute(`CREATE TABLE ${table} (${[...columns, ...(key ? [key] : ["vector_row timeuuid PRIMARY KEY"])].join(", ")})`);
  const names = vector.columns.map(([name]) => quote(name));
  const markers = vector.columns.map(() => "?");
  if (key === null) {
    names.push("vector_row");
    markers.push("now()");
  }
  return `INSERT INTO ${table} (${names.join(", ")}) VALUES (${markers.join(", ")})`;
}

function optionsOf(vector: Case, query: string, bad: BadRowRecord[]): BulkLoadOptions {
  const options: BulkLoadOptions = { query, format: vector.format, dryRun: true, onBadRow: (row) => void bad.push(row) };
  const csv = vector.csv ?? {};
  if (vector.format === "csv") {
    Object.assign(options, { delimiter: csv.delimiter, quote: csv.quote, escape: csv.escape, comment: csv.comment });
    Object.assign(options, { header: csv.header, trim: csv.trim });
  }
  const maxRecordBytes = csv.max_record_bytes ?? vector.jsonl?.max_record_bytes;
  if (maxRecordBytes !== undefined) options.maxRecordBytes = maxRecordBytes;
  if (vector.mapping !== undefined) options.mapping = vector.mapping;
  if (vector.constants !== undefined) options.constants = Object.fromEntries(vector.constants);
  if (vector.null_markers !== undefined) options.nullValues = vector.null_markers;
  if (vector.ignore_unknown !== undefined) options.ignoreUnknown = vector.ignore_unknown;
  if (vector.null_to_unset !== undefined) options.conversion = { nullToUnset: vector.null_to_unset };
  if (vector.max_errors !== undefined) options.maxErrors = vector.max_errors;
  return options;
}

/** Whether the core's record of a bad row says what the vector does about it. */
function checkBad(name: string, row: BadRowRecord, want: Expected): void {
  const where = `${name}: line ${want.line}`;
  assertEquals(row.line, want.line, `${where}: line`);
  assert(row.reason.includes(want.bad!), `${where}: reason ${JSON.stringify(row.reason)} lacks ${JSON.stringify(want.bad)}`);
  if (want.column?.startsWith("#")) assertEquals([row.column, row.field], [null, Number(want.column.slice(1))], where);
  else if (want.column?.startsWith("@")) assertEquals(row.byte, Number(want.column.slice(1)), where);
  else if (want.column !== undefined) assertEquals(row.column, want.column, where);
  if (want.offset !== undefined) assertEquals(row.offset, want.offset, `${where}: offset`);
  const raw = want.raw !== undefined ? new TextEncoder().encode(want.raw) : want.raw_hex !== undefined ? unhex(want.raw_hex) : null;
  if (raw !== null) assertEquals(row.raw, raw, `${where}: raw bytes`);
}

Deno.test("the shared bulk vectors give the same verdicts through client.bulkLoad (dry run, real Cassandra)", async () => {
  const c = client();
  try {
    await c.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    assert(cases.length >= 30, `only ${cases.length} cases`);
    for (const [index, vector] of cases.entries()) {
      const input = vector.input !== undefined ? new TextEncoder().encode(vector.input) : unhex(vector.input_hex!);
      const query = await statementFor(c, index, vector);
      const bad: BadRowRecord[] = [];
      let error: string | null = null;
      let rowsOk = 0;
      try {
        // Cut in pieces of 7 bytes: records, quotes and UTF-8 sequences span pieces.
        const pieces = async function* () {
          for (let at = 0; at < input.length; at += 7) yield input.subarray(at, at + 7);
        };
        const state = await c.bulkLoad(pieces(), optionsOf(vector, query, bad));
        error = state.status.error;
        rowsOk = state.counters.rowsOk;
      } catch (thrown) {
        error = (thrown as Error).message;
      }
      const wantBad = vector.expect.filter((row) => row.bad !== undefined);
      assertEquals(rowsOk, vector.expect.length - wantBad.length, `${vector.name}: good rows`);
      assertEquals(bad.map((row) => row.line), wantBad.map((row) => row.line), `${vector.name}: bad rows`);
      for (const [i, want] of wantBad.entries()) checkBad(vector.name, bad[i], want);
      if (vector.error !== undefined) {
        assert(error?.includes(vector.error), `${vector.name}: error ${JSON.stringify(error)} lacks ${vector.error}`);
      } else {
        assertEquals(error, null, vector.name);
      }
    }
  } finally {
    await c.shutdown();
  }
});
