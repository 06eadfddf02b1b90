// load's option handling without a server: custom queries, write statements, inputs
// (globs, directories), --split, --set and --timestamp parsing.

import { formatCqlType, parseCqlType } from "../../driver/mod.ts";
import { UsageError } from "../../cli/errors.ts";
import { findNamedMarkers, isIdempotentQuery, markerSchema, targetTableOf } from "../../cli/load/custom_query.ts";
import { buildWrite, orderColumns, resolveLayout, type TableColumn, type TableSchema } from "../../cli/load/table.ts";
import { alignToLineStart, expandInputs, globToRegExp, InputReader } from "../../cli/load/input.ts";
import { parseConstant, parseSplit, parseWriteTimestamp, splitInputs } from "../../cli/load/command.ts";
import { assertEquals, assertRejects, assertStringIncludes, assertThrows } from "./assert.ts";

function column(name: string, kind: TableColumn["kind"], position: number, typeText: string): TableColumn {
  return { name, kind, position, type: parseCqlType(typeText), typeText };
}

const USERS: TableSchema = {
  keyspace: "ks",
  table: "users",
  columns: orderColumns([
    column("id", "partition_key", 0, "bigint"),
    column("name", "regular", -1, "text"),
    column("tags", "regular", -1, "list<text>"),
    column("seen", "regular", -1, "set<int>"),
  ]),
};

const COUNTERS: TableSchema = {
  keyspace: "ks",
  table: "hits",
  columns: orderColumns([
    column("page", "partition_key", 0, "text"),
    column("day", "clustering", 0, "date"),
    column("views", "regular", -1, "counter"),
    column("clicks", "regular", -1, "counter"),
  ]),
};

Deno.test("named bind markers are found outside strings and comments, in order", () => {
  const markers = findNamedMarkers(
    `UPDATE ks.users USING TTL :ttl SET name = :Name, tags = [':nope'] -- :comment\n WHERE id = :id AND x = :"Q"`,
  );
  assertEquals(markers.map((m) => m.name), ["ttl", "name", "id", "Q"]);
  assertThrows(() => findNamedMarkers("INSERT INTO t (a) VALUES (?)"), UsageError, /named bind markers/);
  assertEquals(targetTableOf("  insert into KS.Users (id) values (:id)", undefined), {
    keyspace: "ks",
    table: "users",
  });
  assertEquals(targetTableOf('UPDATE "Ks"."T" SET a = :a', undefined), { keyspace: "Ks", table: "T" });
  assertEquals(targetTableOf("DELETE name FROM users WHERE id = :id", "dflt"), { keyspace: "dflt", table: "users" });
  assertThrows(() => targetTableOf("SELECT * FROM t", "ks"), UsageError, /INSERT, UPDATE or DELETE/);
});

Deno.test("markers take their column's type, or TTL/TIMESTAMP's", () => {
  const markers = findNamedMarkers("UPDATE ks.users USING TTL :t AND TIMESTAMP :ts SET name = :name WHERE id = :id");
  const schema = markerSchema(USERS, markers);
  assertEquals(schema.columns.map((c) => [c.name, c.typeText, c.kind]), [
    ["t", "int", "regular"],
    ["ts", "bigint", "regular"],
    ["name", "text", "regular"],
    ["id", "bigint", "partition_key"],
  ]);
  assertThrows(
    () => markerSchema(USERS, findNamedMarkers("UPDATE ks.users SET name = :nick WHERE id = :id")),
    UsageError,
    /type of :nick/,
  );
  // Fields are matched to markers by name; other fields are ignored; every marker needs one.
  const layout = resolveLayout(schema, ["id", "extra", "name", "ts", "t"], null, {
    ignoreUnknown: true,
    requireAll: true,
  });
  assertEquals(layout.bindings.map((b) => [b.fieldIndex, b.column.name]), [[0, "id"], [2, "name"], [3, "ts"], [
    4,
    "t",
  ]]);
  assertThrows(
    () =>
      resolveLayout(schema, ["id", "name"], null, { ignoreUnknown: true, requireAll: true, targetWord: "bind marker" }),
    UsageError,
    /bind marker\(s\) 't', 'ts' get no input field/,
  );
});

Deno.test("idempotency: list appends, counters and conditions are not", () => {
  assertEquals(isIdempotentQuery("UPDATE ks.users SET name = :name WHERE id = :id", USERS), true);
  assertEquals(isIdempotentQuery("UPDATE ks.users SET seen = seen + {1} WHERE id = :id", USERS), true);
  assertEquals(isIdempotentQuery("UPDATE ks.users SET tags = tags + [:t] WHERE id = :id", USERS), false);
  assertEquals(isIdempotentQuery("UPDATE ks.users SET tags = [:t] + tags WHERE id = :id", USERS), false);
  assertEquals(isIdempotentQuery("INSERT INTO ks.users (id) VALUES (:id) IF NOT EXISTS", USERS), false);
  assertEquals(isIdempotentQuery("INSERT INTO ks.users (id, name) VALUES (:id, 'if')", USERS), true);
  assertEquals(isIdempotentQuery("UPDATE ks.hits SET views = views + :v WHERE page = :p", COUNTERS), false);
});

Deno.test("write statements: INSERT with TTL and timestamp, counter UPDATE with reordered markers", () => {
  const insert = buildWrite(USERS, [USERS.columns[0], USERS.columns[1]], { ttl: 60, timestamp: 5n });
  assertEquals(insert.statement, `INSERT INTO "ks"."users" ("id", "name") VALUES (?, ?) USING TTL 60 AND TIMESTAMP 5`);
  assertEquals(insert.order, [0, 1]);
  const columns = ["views", "page", "day"].map((name) => COUNTERS.columns.find((c) => c.name === name)!);
  const update = buildWrite(COUNTERS, columns);
  assertEquals(update.statement, `UPDATE "ks"."hits" SET "views" = "views" + ? WHERE "page" = ? AND "day" = ?`);
  assertEquals(update.order, [0, 1, 2]);
  const keysFirst = buildWrite(
    COUNTERS,
    ["page", "day", "clicks"].map((n) => COUNTERS.columns.find((c) => c.name === n)!),
  );
  assertEquals(keysFirst.order, [2, 0, 1]);
  assertThrows(() => buildWrite(COUNTERS, columns, { ttl: 1 }), UsageError, /counter tables take neither/);
});

Deno.test("--skip, --set and the layout without a header", () => {
  const skipped = resolveLayout(USERS, ["id", "junk", "name"], null, { skip: ["junk"] });
  assertEquals(skipped.bindings.map((b) => b.column.name), ["id", "name"]);
  assertThrows(() => resolveLayout(USERS, ["id", "junk"], null), UsageError, /--skip/);
  const positional = resolveLayout(USERS, null, null, { constants: ["name"] });
  assertEquals(positional.bindings.map((b) => b.column.name), ["id", "seen", "tags"]);
  assertThrows(() => resolveLayout(USERS, ["id", "name"], null, { constants: ["name"] }), UsageError, /--set constant/);
  assertEquals(parseConstant("source=a=b"), ["source", "a=b"]);
  assertThrows(() => parseConstant("novalue"), UsageError);
  assertEquals(parseWriteTimestamp("1700000000000000"), 1700000000000000n);
  assertEquals(parseWriteTimestamp("2024-01-01T00:00:00Z"), 1704067200000000n);
  assertThrows(() => parseWriteTimestamp("yesterday"), UsageError);
  // Without a zone: UTC, as row timestamps are (this fails under a TZ other than UTC when it is
  // not; tests/cli/file_safety_test.ts runs the CLI under Asia/Kolkata).
  assertEquals(parseWriteTimestamp("2024-01-01T00:00:00"), 1704067200000000n);
  assertEquals(parseWriteTimestamp("2024-01-01 00:00:00.5"), 1704067200500000n);
  assertEquals(parseWriteTimestamp("2024-01-01"), 1704067200000000n);
  assertEquals(parseWriteTimestamp("2024-01-01T02:00:00+02:00"), 1704067200000000n);
  assertEquals(parseWriteTimestamp("2024-01-01T00:00:00-0130"), 1704072600000000n);
  assertEquals(parseSplit("2/4"), { index: 2, count: 4 });
  assertThrows(() => parseSplit("5/4"), UsageError);
  assertThrows(() => parseSplit("x"), UsageError);
});

async function tempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-opts-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("inputs: globs, directories (recursively, no hidden files) and duplicates", async () => {
  await tempDir(async (dir) => {
    await Deno.mkdir(`${dir}/sub/deep`, { recursive: true });
    for (const name of ["a.csv", "b.csv", "c.jsonl", ".hidden.csv", "sub/d.csv.gz", "sub/deep/e.csv"]) {
      await Deno.writeTextFile(`${dir}/${name}`, "x\n");
    }
    const names = async (args: string[]) => (await expandInputs(args)).map((input) => input.path.slice(dir.length + 1));
    assertEquals(await names([`${dir}/*.csv`]), ["a.csv", "b.csv"]);
    assertEquals(await names([`${dir}/**/*.csv`]), ["a.csv", "b.csv", "sub/deep/e.csv"]);
    assertEquals(await names([`${dir}/sub`]), ["sub/d.csv.gz", "sub/deep/e.csv"]);
    assertEquals(await names([`${dir}/a.csv`, `${dir}/[ab].csv`]), ["a.csv", "b.csv"]);
    const [gz] = await expandInputs([`${dir}/sub/d.csv.gz`]);
    assertEquals([gz.compression, gz.format, gz.size], ["gzip", "csv", 2]);
    assertEquals((await expandInputs([`${dir}/c.jsonl`]))[0].format, "jsonl");
    await assertRejects(() => expandInputs([`${dir}/*.tsv`]), UsageError, /no file matches/);
    await assertRejects(() => expandInputs(["-", "-"]), UsageError, /only once/);
    await assertRejects(() => expandInputs([`${dir}/missing.csv`]), UsageError, /cannot read/);
    assertEquals(globToRegExp("a?[!x]*.csv").test("ab1zz.csv"), true);
    assertEquals(globToRegExp("a?[!x]*.csv").test("abx.csv"), false);
  });
});

/** The lines of `path` one process reads: from `start`, those starting up to just past `stopAfter`. */
async function linesOfShare(input: Parameters<typeof splitInputs>[0][number], start?: { offset: number; line: number }, stopAfter?: number) {
  const chunks: Uint8Array[] = [];
  for await (const chunk of new InputReader(input).bytes(start?.offset ?? 0)) chunks.push(chunk);
  const text = new TextDecoder().decode(Uint8Array.from(chunks.flatMap((chunk) => [...chunk])));
  const out: Array<{ raw: string; line: number }> = [];
  let at = start?.offset ?? 0;
  let line = start?.line ?? 1;
  for (const raw of text.split("\n").slice(0, -1)) {
    // A record belongs to the range holding the byte just before it.
    if (stopAfter !== undefined && at - 1 >= stopAfter) break;
    out.push({ raw, line });
    at += raw.length + 1;
    line++;
  }
  return out;
}

Deno.test("--split by byte range: every record goes to exactly one process (core_path_test: each reads the header)", async () => {
  await tempDir(async (dir) => {
    const lines = ["id,name"];
    for (let i = 0; i < 500; i++) lines.push(`${i},${"x".repeat(i % 13)}`);
    const path = `${dir}/data.csv`;
    await Deno.writeTextFile(path, lines.join("\n") + "\n");
    const inputs = await expandInputs([path]);
    for (const count of [1, 2, 3, 7]) {
      const seen: string[] = [];
      for (let index = 1; index <= count; index++) {
        const [plan] = await splitInputs(inputs, { index, count });
        const got = await linesOfShare(plan.input, plan.start, plan.stopAfter);
        const first = got[0]?.line === 1 ? 1 : 0;
        for (const record of got.slice(first)) {
          seen.push(record.raw);
          assertEquals(lines[record.line - 1], record.raw, "line numbers are those of the file");
        }
      }
      assertEquals(seen.sort(), lines.slice(1).sort(), `split into ${count}`);
    }
    // Several files are split by file.
    const many = await expandInputs([path, path.replace("data", "data2")].map((p, i) => {
      if (i === 1) Deno.writeTextFileSync(p, "id\n");
      return p;
    }));
    assertEquals((await splitInputs(many, { index: 2, count: 2 })).map((p) => p.input.path), [many[1].path]);
    assertEquals(await alignToLineStart(path, 0), { offset: 0, line: 1 });
    assertEquals(await alignToLineStart(path, 3), { offset: 8, line: 2 });
  });
});

// The CLI reads column types with the driver's parser (the CLI's own is gone): type text
// nested 10 000 deep is a syntax error, not a stack overflow.
Deno.test("CQL type text nested deeper than 64 levels is a SyntaxError, not a stack overflow", () => {
  const nested = (depth: number, open: string) => `${open.repeat(depth)}int${">".repeat(depth)}`;
  assertEquals(formatCqlType(parseCqlType(nested(64, "list<"))), nested(64, "list<"));
  for (const open of ["frozen<", "list<", "map<int, "]) {
    const error = assertThrows(() => parseCqlType(nested(10_000, open)), SyntaxError);
    assertStringIncludes(error.message, "type nested deeper than 64");
  }
});
