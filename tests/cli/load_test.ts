import { parseCqlType } from "../../cli/cql_type.ts";
import { UsageError } from "../../cli/errors.ts";
import { badFileStem, BadRowLog, describeProblem, uniqueStems } from "../../cli/load/bad_rows.ts";
import { CsvFileSource, type RowSource, type SourceRecord } from "../../cli/load/csv_source.ts";
import { ConcurrencyWindow, runLoad } from "../../cli/load/loader.ts";
import { CsvRowConverter } from "../../cli/load/row_converter.ts";
import {
  buildInsert,
  orderColumns,
  parseMapSpec,
  parseTableName,
  resolveLayout,
  type TableColumn,
  type TableSchema,
} from "../../cli/load/table.ts";
import { assertEquals, assertStringIncludes, assertThrows } from "./assert.ts";

function column(name: string, kind: TableColumn["kind"], position: number, typeText: string): TableColumn {
  return { name, kind, position, type: parseCqlType(typeText), typeText };
}

const SCHEMA: TableSchema = {
  keyspace: "ks",
  table: "people",
  columns: orderColumns([
    column("name", "regular", -1, "text"),
    column("id", "partition_key", 0, "int"),
    column("age", "regular", -1, "int"),
    column("seq", "clustering", 0, "bigint"),
    column("Tags", "regular", -1, "set<text>"),
  ]),
};

async function withCsv<T>(content: string, fn: (path: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-load-" });
  try {
    const path = `${dir}/input.csv`;
    await Deno.writeTextFile(path, content);
    return await fn(path, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function collect(source: RowSource): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for await (const record of source.records()) records.push(record);
  return records;
}

const CSV = { delimiter: ",", quote: '"' };

Deno.test("CSV records carry start lines, verbatim text and quoting", async () => {
  const content = 'id,name\r\n1,"multi\nline ""quoted"""\n# a comment\n\n2,\n3,""\n4,ünï😀\n5,"x"';
  await withCsv(content, async (path) => {
    const records = await collect(new CsvFileSource(path, { ...CSV, comment: "#" }));
    assertEquals(records.map((r) => r.line), [1, 2, 6, 7, 8, 9]);
    assertEquals(records.map((r) => r.raw), [
      "id,name",
      '1,"multi\nline ""quoted"""',
      "2,",
      '3,""',
      "4,ünï😀",
      '5,"x"',
    ]);
    assertEquals(records[1].fields, [{ text: "1", quoted: false }, { text: 'multi\nline "quoted"', quoted: true }]);
    assertEquals(records[2].fields[1], { text: "", quoted: false });
    assertEquals(records[3].fields[1], { text: "", quoted: true });
  });
});

Deno.test("line numbers stay right with CRLF inside quoted fields and mixed terminators", async () => {
  await withCsv('h,v\r\n1,"a\r\nb\nc"\r\n# note\r\n\r\n2,x\r3,"\r\n"\n4,y', async (path) => {
    const records = await collect(new CsvFileSource(path, { ...CSV, comment: "#" }));
    assertEquals(records.map((r) => r.line), [1, 2, 7, 8, 10]);
    assertEquals(records[1].fields[1].text, "a\r\nb\nc");
    assertEquals(records.map((r) => r.raw), ["h,v", '1,"a\r\nb\nc"', "2,x", '3,"\r\n"', "4,y"]);
  });
});

Deno.test("an unclosed quote at the end becomes one malformed record with the rest of the file", async () => {
  await withCsv('a,b\n1,ok\n2,"never closed\n3,x\n', async (path) => {
    const records = await collect(new CsvFileSource(path, CSV));
    assertEquals(records.length, 3);
    assertEquals(records[2].line, 3);
    assertEquals(records[2].raw, '2,"never closed\n3,x');
    assertStringIncludes(records[2].malformed ?? "", "never closed");
  });
});

Deno.test("no good record is lost before a trailing unclosed quote, even with a slow consumer", async () => {
  const lines = ["a,b"];
  for (let i = 0; i < 3000; i++) lines.push(`${i},"v${i}"`);
  await withCsv(`${lines.join("\n")}\n3000,"broken\n`, async (path) => {
    const records: SourceRecord[] = [];
    for await (const record of new CsvFileSource(path, CSV).records()) {
      if (records.length % 500 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      records.push(record);
    }
    assertEquals(records.length, 3002);
    assertEquals(records[3000].raw, `2999,"v2999"`);
    assertEquals(records[3001].raw, `3000,"broken`);
    assertEquals(records[3001].line, 3002);
    assertEquals(records.filter((r) => r.malformed !== undefined).length, 1);
  });
});

Deno.test("a consumer that stops early does not hang the source", async () => {
  await withCsv("a\n" + "1\n".repeat(200_000), async (path) => {
    let seen = 0;
    for await (const _record of new CsvFileSource(path, CSV).records()) {
      if (++seen === 5) break;
    }
    assertEquals(seen, 5);
  });
});

Deno.test("other delimiters, quotes and escapes", async () => {
  await withCsv("a;b\n'x;y';'it\\'s'\n", async (path) => {
    const records = await collect(new CsvFileSource(path, { delimiter: ";", quote: "'", escape: "\\" }));
    assertEquals(records[1].fields.map((f) => f.text), ["x;y", "it's"]);
  });
});

Deno.test("gzip input is decompressed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-gz-" });
  try {
    const path = `${dir}/in.csv.gz`;
    const compressed = new Blob(["a,b\n1,2\n"]).stream().pipeThrough(new CompressionStream("gzip"));
    await Deno.writeFile(path, compressed);
    const records = await collect(new CsvFileSource(path, CSV));
    assertEquals(records.map((r) => r.raw), ["a,b", "1,2"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("table names and --map specs", () => {
  assertEquals(parseTableName("KS.Tbl", undefined), { keyspace: "ks", table: "tbl" });
  assertEquals(parseTableName(`"My KS"."My ""T"""`, undefined), { keyspace: "My KS", table: 'My "T"' });
  assertEquals(parseTableName("t", "dflt"), { keyspace: "dflt", table: "t" });
  assertThrows(() => parseTableName("t", undefined), UsageError, /no keyspace/);
  assertThrows(() => parseTableName("a.b.c", undefined), UsageError, /invalid table name/);
  assertEquals(parseMapSpec("f1=c1, f 2 = c2"), [["f1", "c1"], ["f 2", "c2"]]);
  assertThrows(() => parseMapSpec("f1"), UsageError, /expected field=column/);
});

Deno.test("layout: header names map to columns, case-insensitively when unambiguous", () => {
  assertEquals(SCHEMA.columns.map((c) => c.name), ["id", "seq", "Tags", "age", "name"]);
  const layout = resolveLayout(SCHEMA, ["ID", "seq", "tags", "name"], null);
  assertEquals(layout.bindings.map((b) => [b.fieldIndex, b.column.name]), [[0, "id"], [1, "seq"], [2, "Tags"], [
    3,
    "name",
  ]]);
  assertEquals(layout.expectedFieldCount, 4);
  assertEquals(
    buildInsert(SCHEMA, layout.bindings),
    `INSERT INTO "ks"."people" ("id", "seq", "Tags", "name") VALUES (?, ?, ?, ?)`,
  );
  assertThrows(() => resolveLayout(SCHEMA, ["id", "seq", "nickname"], null), UsageError, /'nickname' match no column/);
  assertThrows(() => resolveLayout(SCHEMA, ["id", "name"], null), UsageError, /'seq' get no input field/);
  assertThrows(() => resolveLayout(SCHEMA, ["id", "seq", "age", "AGE"], null), UsageError, /both go to column 'age'/);
});

Deno.test("layout: --map with and without a header", () => {
  const mapped = resolveLayout(SCHEMA, ["ident", "junk", "sequence"], [["sequence", "seq"], ["ident", "id"]]);
  assertEquals(mapped.bindings.map((b) => [b.fieldIndex, b.column.name]), [[2, "seq"], [0, "id"]]);
  assertEquals(mapped.expectedFieldCount, 3);
  assertThrows(() => resolveLayout(SCHEMA, ["a"], [["b", "id"]]), UsageError, /no field 'b'/);
  assertThrows(() => resolveLayout(SCHEMA, ["a", "b"], [["a", "id"], ["b", "nope"]]), UsageError, /no column 'nope'/);
  const positional = resolveLayout(SCHEMA, null, null);
  assertEquals(positional.expectedFieldCount, 5);
  const indexed = resolveLayout(SCHEMA, null, [["3", "id"], ["0", "seq"]]);
  assertEquals([indexed.expectedFieldCount, indexed.extraFieldsAllowed], [4, true]);
  const indexedConverter = new CsvRowConverter(indexed, [""]);
  assertEquals(indexedConverter.convert(record(["7", "x", "y", "1", "extra"])), { ok: true, values: [1, 7n] });
  assertEquals(indexedConverter.convert(record(["7", "x", "y"])), {
    ok: false,
    problem: { reason: "expected at least 4 fields, found 3" },
  });
  assertThrows(() => resolveLayout(SCHEMA, null, [["x", "id"]]), UsageError, /0-based indexes/);
});

function record(fields: Array<string | [string, boolean]>, line = 2): SourceRecord {
  return {
    source: "in.csv",
    line,
    raw: "raw",
    fields: fields.map((f) => typeof f === "string" ? { text: f, quoted: false } : { text: f[0], quoted: f[1] }),
  };
}

Deno.test("row conversion: nulls, quoted empties, counts and key checks", () => {
  const layout = resolveLayout(SCHEMA, ["id", "seq", "name", "age"], null);
  const converter = new CsvRowConverter(layout, ["", "NULL"]);
  assertEquals(converter.convert(record(["1", "2", "Ann", "30"])), { ok: true, values: [1, 2n, "Ann", 30] });
  assertEquals(converter.convert(record(["1", "2", "", "NULL"])), { ok: true, values: [1, 2n, null, null] });
  assertEquals(converter.convert(record(["1", "2", ["", true], ["NULL", true]])).ok, false);
  assertEquals(converter.convert(record(["1", "2", ["NULL", true], ""])), { ok: true, values: [1, 2n, "NULL", null] });
  assertEquals(converter.convert(record(["1", "2", "x"])), {
    ok: false,
    problem: { reason: "expected 4 fields, found 3" },
  });
  assertEquals(converter.convert(record(["1", "2", "x", "old"])), {
    ok: false,
    problem: { field: 4, column: "age", type: "int", value: "old", reason: "not an integer (expected int)" },
  });
  assertEquals(converter.convert(record(["", "2", "x", "1"])), {
    ok: false,
    problem: { field: 1, column: "id", type: "int", value: "", reason: "a primary key column cannot be null" },
  });
});

Deno.test("bad-row log lines and file names", () => {
  const line = describeProblem(record(["x"], 12), {
    field: 3,
    column: "age",
    type: "int",
    value: "a\nb",
    reason: "not an integer (expected int)",
  });
  assertEquals(line, `in.csv:12: field 3 (column age, int): not an integer (expected int); value "a\\nb"`);
  assertEquals(
    describeProblem(record([], 4), { reason: "expected 2 fields, found 1" }),
    "in.csv:4: expected 2 fields, found 1",
  );
  assertEquals(badFileStem("/data/users.csv.gz"), "users");
  assertEquals(badFileStem("-"), "stdin");
  assertEquals(uniqueStems(["a/x.csv", "b/x.csv", "y.tsv"]), ["x", "x-2", "y"]);
});

Deno.test("the concurrency window never exceeds its limit", async () => {
  const window = new ConcurrencyWindow(3);
  let active = 0;
  let peak = 0;
  const tasks: Array<Promise<void>> = [];
  for (let i = 0; i < 20; i++) {
    await window.acquire();
    active++;
    peak = Math.max(peak, active);
    tasks.push(new Promise<void>((resolve) => setTimeout(resolve, i % 4)).then(() => {
      active--;
      window.release();
    }));
  }
  await window.drain();
  await Promise.all(tasks);
  assertEquals(peak, 3);
  assertEquals(window.inFlight, 0);
});

/** Rows as records, the first flagged as the header (as CSV sources with a header do). */
class ArraySource implements RowSource {
  constructor(readonly name: string, private readonly rows: string[][]) {}
  async *records(): AsyncGenerator<SourceRecord & { header?: boolean }> {
    let offset = 0;
    for (const [i, row] of this.rows.entries()) {
      await Promise.resolve();
      const raw = row.join(",");
      yield {
        source: this.name,
        line: i + 1,
        raw,
        fields: row.map((text) => ({ text, quoted: false })),
        offset,
        end: offset + raw.length + 1,
        nextLine: i + 2,
        ...(i === 0 ? { header: true } : {}),
      };
      offset += raw.length + 1;
    }
  }
}

async function loadRows(rows: string[][], insert: (values: unknown[]) => Promise<void>, maxErrors?: number) {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-loader-" });
  try {
    const badLog = new BadRowLog(dir, "in");
    const summary = await runLoad(
      [{ source: new ArraySource("in.csv", rows), badLog }],
      (header) => {
        const layout = resolveLayout(SCHEMA, header, null);
        return { statement: buildInsert(SCHEMA, layout.bindings), converter: new CsvRowConverter(layout, [""]) };
      },
      { execute: (_statement, values) => insert(values as unknown[]) },
      { hasHeader: true, maxConcurrency: 4, initialConcurrency: 4, maxErrors, maxRetries: 0 },
    );
    const bad = summary.badRows > 0 ? await Deno.readTextFile(badLog.badPath) : "";
    const log = summary.badRows > 0 ? await Deno.readTextFile(badLog.logPath) : "";
    return { summary, bad, log };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the loader writes good rows, records bad ones with reasons, and bounds concurrency", async () => {
  const written: unknown[][] = [];
  let active = 0;
  let peak = 0;
  const rows = [["id", "seq", "age"]];
  for (let i = 0; i < 50; i++) rows.push([String(i), "1", i % 10 === 3 ? "not-a-number" : String(i)]);
  rows.push(["99", "1"]);
  rows.push(["-1", "1", "7"]);
  const { summary, bad, log } = await loadRows(rows, async (values) => {
    active++;
    peak = Math.max(peak, active);
    await new Promise((resolve) => setTimeout(resolve, 1));
    active--;
    if (values[0] === -1) {
      throw Object.assign(new Error("Invalid (0x2200): rejected by the fake server"), { code: 0x2200 });
    }
    written.push(values);
  });
  assertEquals(summary.rowsLoaded, 45);
  assertEquals(summary.badRows, 7);
  assertEquals(summary.abortedBecause, null);
  assertEquals(peak <= 4, true, `peak concurrency ${peak}`);
  assertEquals(written.length, 45);
  const badLines = bad.trimEnd().split("\n");
  assertEquals(badLines[0], "id,seq,age");
  assertEquals(
    badLines.slice(1).sort(),
    [
      "-1,1,7",
      "13,1,not-a-number",
      "23,1,not-a-number",
      "3,1,not-a-number",
      "33,1,not-a-number",
      "43,1,not-a-number",
      "99,1",
    ].sort(),
  );
  assertStringIncludes(log, "in.csv:5: field 3 (column age, int): not an integer (expected int)");
  assertStringIncludes(log, "in.csv:52: expected 3 fields, found 2");
  assertStringIncludes(log, "in.csv:53: rejected by the server: Invalid (0x2200): rejected by the fake server");
});

Deno.test("--max-errors stops the load once reached", async () => {
  const rows = [["id", "seq"]];
  for (let i = 0; i < 100; i++) rows.push(["x", "1"]);
  const { summary } = await loadRows(rows, () => Promise.resolve(), 5);
  assertEquals(summary.badRows, 5);
  assertStringIncludes(summary.abortedBecause ?? "", "--max-errors 5");
});

Deno.test("an unreachable cluster aborts the load instead of filling the bad file", async () => {
  const rows = [["id", "seq"]];
  for (let i = 0; i < 100; i++) rows.push([String(i), "1"]);
  class NoHostAvailableError extends Error {
    override name = "NoHostAvailableError";
  }
  const { summary } = await loadRows(rows, () => Promise.reject(new NoHostAvailableError("all hosts down")));
  assertStringIncludes(summary.abortedBecause ?? "", "all hosts down");
  assertEquals(summary.badRows <= 4 + 1, true, `bad rows ${summary.badRows}`);
});
