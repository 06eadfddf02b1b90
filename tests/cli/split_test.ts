import { splitScript, splitStatements } from "../../cli/split.ts";
import { assertEquals } from "./assert.ts";

Deno.test("one statement, with or without a trailing semicolon", () => {
  assertEquals(splitStatements("SELECT * FROM t"), ["SELECT * FROM t"]);
  assertEquals(splitStatements("  SELECT * FROM t ;\n"), ["SELECT * FROM t"]);
});

Deno.test("several statements; empty ones are dropped", () => {
  assertEquals(splitStatements("USE ks; SELECT 1 FROM t;; ;\n INSERT INTO t (a) VALUES (1)"), [
    "USE ks",
    "SELECT 1 FROM t",
    "INSERT INTO t (a) VALUES (1)",
  ]);
});

Deno.test("semicolons inside strings, quoted identifiers and doubled quotes do not split", () => {
  assertEquals(splitStatements(`INSERT INTO t (a) VALUES ('x;y');SELECT "we;ird" FROM t`), [
    "INSERT INTO t (a) VALUES ('x;y')",
    `SELECT "we;ird" FROM t`,
  ]);
  assertEquals(splitStatements("INSERT INTO t (a) VALUES ('it''s; fine'); SELECT 1"), [
    "INSERT INTO t (a) VALUES ('it''s; fine')",
    "SELECT 1",
  ]);
  assertEquals(splitStatements(`SELECT "a""; b" FROM t; SELECT 2`), [`SELECT "a""; b" FROM t`, "SELECT 2"]);
});

Deno.test("semicolons inside comments do not split; comment-only statements are dropped", () => {
  assertEquals(splitStatements("SELECT 1 -- a; b\nFROM t; // c; d\n/* e; f */ SELECT 2; -- only a comment;"), [
    "SELECT 1 -- a; b\nFROM t",
    "// c; d\n/* e; f */ SELECT 2",
  ]);
  assertEquals(splitStatements("/* x; */ -- y;\n"), []);
});

Deno.test("$$ function bodies keep their semicolons", () => {
  const create =
    "CREATE FUNCTION f (a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$ int b = a; return b; $$";
  assertEquals(splitStatements(`${create}; SELECT f(1) FROM t`), [create, "SELECT f(1) FROM t"]);
});

Deno.test("BEGIN BATCH ... APPLY BATCH stays one statement", () => {
  const script =
    "BEGIN UNLOGGED BATCH\n INSERT INTO t (a) VALUES (1);\n INSERT INTO t (a) VALUES (';');\nAPPLY BATCH;\nSELECT * FROM t;";
  assertEquals(splitStatements(script), [
    "BEGIN UNLOGGED BATCH\n INSERT INTO t (a) VALUES (1); INSERT INTO t (a) VALUES (';'); APPLY BATCH",
    "SELECT * FROM t",
  ]);
  assertEquals(splitStatements("begin batch insert into t (a) values (1) apply batch; select 1"), [
    "begin batch insert into t (a) values (1) apply batch",
    "select 1",
  ]);
});

Deno.test("an unterminated string runs to the end instead of splitting", () => {
  assertEquals(splitStatements("SELECT 'abc; def"), ["SELECT 'abc; def"]);
});

Deno.test("each statement's line is where its code starts, past comments and blank lines; its code has no comments", () => {
  const script = "USE ks;\n\n-- setup; here\n/* two\nlines */ CREATE TABLE t (a int PRIMARY KEY,\n  b text); SELECT\n'x\n;y' FROM t;\n" +
    "BEGIN BATCH\nINSERT INTO t (a) VALUES (1);\nAPPLY BATCH;\n  // trailing comment";
  assertEquals(splitScript(script), [
    { text: "USE ks", line: 1, code: "USE ks" },
    {
      text: "-- setup; here\n/* two\nlines */ CREATE TABLE t (a int PRIMARY KEY,\n  b text)",
      line: 5,
      code: "CREATE TABLE t (a int PRIMARY KEY, b text)",
    },
    { text: "SELECT\n'x\n;y' FROM t", line: 6, code: "SELECT 'x ;y' FROM t" },
    { text: "BEGIN BATCH\nINSERT INTO t (a) VALUES (1); APPLY BATCH", line: 9, code: "BEGIN BATCH INSERT INTO t (a) VALUES (1); APPLY BATCH" },
  ]);
});
