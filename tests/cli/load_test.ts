import { parseCqlType } from "../../driver/mod.ts";
import { UsageError } from "../../cli/errors.ts";
import { badFileStem, describeProblem, uniqueStems } from "../../cli/load/bad_rows.ts";
import {
  buildInsert,
  orderColumns,
  parseMapSpec,
  parseTableName,
  resolveLayout,
  type TableColumn,
  type TableSchema,
} from "../../cli/load/table.ts";
import { assertEquals, assertThrows } from "./assert.ts";

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
  // A header ending in a delimiter (`id,seq,`) has an empty last name: the message says so.
  const empty = assertThrows(() => resolveLayout(SCHEMA, ["id", "seq", ""], null), UsageError);
  assertEquals(
    empty.message,
    "header field(s) '' match no column of ks.people; use --map field=column to choose the fields to load, or --skip " +
      "to leave some out (an empty name: the header ends in a delimiter; --map the fields to load)",
  );
  // vega-datasets' unemployment.tsv loaded without --delimiter: its header is one field.
  const tsv = assertThrows(() => resolveLayout(SCHEMA, ["id\trate"], null), UsageError);
  assertEquals(
    tsv.message,
    "header field(s) 'id\trate' match no column of ks.people; use --map field=column to choose the fields to load, or " +
      "--skip to leave some out (the header is one field with a tab in it: is the input tab-separated? --delimiter tab)",
  );
  assertThrows(
    () => resolveLayout(SCHEMA, ["id;seq;name"], null),
    UsageError,
    /one field with ';' in it: is the input ';'-separated\? --delimiter ';'\)$/,
  );
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
  assertThrows(() => resolveLayout(SCHEMA, null, [["x", "id"]]), UsageError, /0-based indexes/);
});

Deno.test("bad-row log lines and file names", () => {
  const line = describeProblem({ source: "in.csv", line: 12 }, {
    field: 3,
    column: "age",
    type: "int",
    value: "a\nb",
    reason: "not an integer (expected int)",
  });
  assertEquals(line, `in.csv:12: field 3 (column age, int): not an integer (expected int); value "a\\nb"`);
  assertEquals(
    describeProblem({ source: "in.csv", line: 4 }, { reason: "expected 2 fields, found 1" }),
    "in.csv:4: expected 2 fields, found 1",
  );
  // The core names the column in its reason; the log adds the field and its type.
  assertEquals(
    describeProblem({ source: "-", line: 3 }, { field: 2, type: "int", value: "x", reason: "column age: not an integer" }),
    `<stdin>:3: field 2 (int): column age: not an integer; value "x"`,
  );
  assertEquals(badFileStem("/data/users.csv.gz"), "users");
  assertEquals(badFileStem("-"), "stdin");
  assertEquals(uniqueStems(["a/x.csv", "b/x.csv", "y.tsv"]), ["x", "x-2", "y"]);
});

