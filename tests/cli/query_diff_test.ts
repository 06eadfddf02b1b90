// `cqlwire query` against what a cqlsh or DSBulk user sees for the same rows (cli/README.md,
// "Coming from cqlsh: query"). The tables are tests/cli/peer_tables.ts's; cqlsh 6.2's output of
// tests/cli/data/query_diff_selects.cql and of query_diff_errors.cql is a fixture captured by
// tests/cli/peers/capture.sh (`make test` installs no cqlsh), compared cell by cell. Cassandra's
// own `SELECT JSON` is compared live with `--format json`. Every cell must be equal or fall under
// one of the documented differences below, and each documented difference must still occur:
// a difference that goes away must leave the README too. These tests fail when no server answers.

import { assert, assertEquals } from "./assert.ts";
import { ok } from "./cli_helpers.ts";
import { createPeerTables, DATA, KEYSPACE, V_TYPES as TYPES } from "./peer_tables.ts";
import { runCli } from "./run.ts";

interface Table {
  columns: string[];
  rows: string[][];
}

/** The tables in cqlsh's (or cqlwire's) output, cells trimmed; other lines are skipped. */
function parseTables(text: string): Table[] {
  const lines = text.split("\n");
  const tables: Table[] = [];
  const cells = (line: string) => `${line} `.split(" | ").map((cell) => cell.trim());
  for (let i = 1; i < lines.length; i++) {
    if (!/^-+(\+-+)*\s*$/.test(lines[i])) continue;
    const table: Table = { columns: cells(lines[i - 1]), rows: [] };
    for (i++; i < lines.length && lines[i].trim() !== ""; i++) table.rows.push(cells(lines[i]));
    tables.push(table);
  }
  return tables;
}

/** A known difference: when it applies to a cell cqlsh and cqlwire print differently. */
interface Rule {
  name: string;
  applies(type: string | undefined, cqlsh: string, cqlwire: string): boolean;
}

const fiveDigits = (text: string, float: boolean) => {
  const value = float ? Math.fround(Number(text)) : Number(text);
  return Number(value.toPrecision(5));
};
/** Milliseconds since the epoch of cqlsh's `2024-03-05 06:07:08.009000+0000` (its microseconds come from a float). */
const cqlshInstant = (text: string) => {
  const match = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)\.(\d{6})\+0000$/.exec(text);
  return match === null ? NaN : Date.parse(`${match[1]}T${match[2]}Z`) + Math.round(Number(match[3]) / 1000);
};
const daysOf = (date: string) => {
  const match = /^(-?\d+)-(\d\d)-(\d\d)$/.exec(date);
  if (match === null) return NaN;
  const at = new Date(Date.UTC(2000, Number(match[2]) - 1, Number(match[3])));
  at.setUTCFullYear(Number(match[1]));
  return at.getTime() / 86_400_000;
};

const TABLE_RULES: Rule[] = [
  { name: "boolean True/False", applies: (type, c, w) => type === "boolean" && c.toLowerCase() === w },
  {
    name: "float and double: cqlsh's 5 significant digits",
    applies: (type, c, w) => (type === "float" || type === "double") && fiveDigits(w, type === "float") === Number(c),
  },
  {
    name: "vectors of float and double: cqlsh's 5 significant digits",
    applies: (type, c, w) => {
      const [ours, theirs] = [w, c].map((text) => text.slice(1, -1).split(", "));
      return (type === "vector<float>" || type === "vector<double>") && ours.length === theirs.length &&
        ours.every((item, i) => fiveDigits(item, type === "vector<float>") === Number(theirs[i]));
    },
  },
  { name: "timestamp ISO-8601", applies: (type, c, w) => type === "timestamp" && cqlshInstant(c) === Date.parse(w) },
  { name: "date before year 1: cqlsh's day number", applies: (type, c, w) => type === "date" && Number(c) === daysOf(w) },
  { name: "time without a zero fraction", applies: (type, c, w) => type === "time" && c === `${w}.000000000` },
  { name: "zero duration: cqlsh's empty cell", applies: (type, c, w) => type === "duration" && c === "" && w === "0s" },
  { name: "null inside tuples: cqlsh's None", applies: (type, c, w) => type?.includes("tuple") === true && c.replaceAll("None", "null") === w },
];

/** Compares two lists of tables cell by cell; returns the mismatches, and records the rules used. */
function compareTables(cqlsh: Table[], cqlwire: Table[], used: Set<string>): string[] {
  const problems: string[] = [];
  assertEquals(cqlwire.length, cqlsh.length, "number of result tables");
  cqlsh.forEach((expected, t) => {
    const actual = cqlwire[t];
    assertEquals(actual.columns, expected.columns, `table ${t}: columns`);
    assertEquals(actual.rows.length, expected.rows.length, `table ${t} (${expected.columns}): rows`);
    expected.rows.forEach((row, r) => {
      row.forEach((c, i) => {
        const w = actual.rows[r][i];
        if (c === w) return;
        const column = expected.columns[i];
        const rule = TABLE_RULES.find((candidate) => candidate.applies(TYPES[column], c, w));
        if (rule === undefined) problems.push(`table ${t}, row ${row[0]}, ${column}: cqlsh ${JSON.stringify(c)}, cqlwire ${JSON.stringify(w)}`);
        else used.add(rule.name);
      });
    });
  });
  return problems;
}

/** A JSON value with every number kept as its source text. */
function parseJson(text: string): unknown {
  return JSON.parse(text, (_key, value, context?: { source?: string }) => typeof value === "number" ? { number: context?.source } : value);
}

const ipv6 = (text: string) => new URL(`http://[${text}]/`).hostname;
const JSON_RULES: Rule[] = [
  {
    name: "float and double: Java's spelling",
    applies: (type, c, w) => {
      const float = type === "float" ? Math.fround : (x: number) => x;
      return (type === "float" || type === "double") && /^[-\d]/.test(c) && float(Number(c)) === float(Number(w));
    },
  },
  { name: "NaN and the infinities: Cassandra's null", applies: (_t, c, w) => c === "null" && ['"NaN"', '"Infinity"', '"-Infinity"'].includes(w) },
  { name: "timestamp with a T", applies: (type, c, w) => type === "timestamp" && c.replace(" ", "T") === w },
  { name: "IPv6 compressed", applies: (type, c, w) => type === "inet" && ipv6(JSON.parse(c)) === ipv6(JSON.parse(w)) },
  { name: "time without a zero fraction", applies: (type, c, w) => type === "time" && c === `${w.slice(0, -1)}.000000000"` },
  { name: "zero duration: Cassandra's empty string", applies: (type, c, w) => type === "duration" && c === '""' && w === '"0s"' },
];

/** Rows by id, each member as its JSON text (numbers as written). */
function membersById(lines: string[]): Map<string, Map<string, string>> {
  const rows = new Map<string, Map<string, string>>();
  for (const line of lines) {
    const row = parseJson(line) as Record<string, unknown>;
    // Each member serialised again, its numbers back in their source spelling.
    const members = new Map(
      Object.entries(row).map(([key, value]) => [key, JSON.stringify(value).replace(/\{"number":"([^"]*)"\}/g, "$1")]),
    );
    rows.set(members.get("id")!, members);
  }
  return rows;
}

Deno.test({
  name: "query prints what cqlsh prints, but for the documented differences",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await createPeerTables();

    await t.step("every type, paging, USE, an empty result, against cqlsh -f", async () => {
      const cqlsh = parseTables(await Deno.readTextFile(`${DATA}/cqlsh_query.txt`));
      // Pages of 100 rows: the 760-row partition comes in 8 pages, in order.
      const out = await ok(["query", "-f", `${DATA}/query_diff_selects.cql`, "--page-size", "100"]);
      const used = new Set<string>();
      const problems = compareTables(cqlsh, parseTables(out.stdout), used);
      assertEquals(problems, []);
      assertEquals([...used].sort(), TABLE_RULES.map((rule) => rule.name).sort(), "documented differences that no longer occur");
      assertEquals(cqlsh.length, 16);
    });

    await t.step("--format json against Cassandra's SELECT JSON", async () => {
      const server = JSON.parse((await ok(["query", "--format", "json", `SELECT JSON * FROM ${KEYSPACE}.v`])).stdout) as Array<Record<string, string>>;
      const ours = (await ok(["query", "--format", "json", `SELECT * FROM ${KEYSPACE}.v`])).stdout
        .split("\n").filter((line) => line.startsWith("{")).map((line) => line.replace(/,$/, ""));
      const [expected, actual] = [membersById(server.map((row) => row["[json]"])), membersById(ours)];
      assertEquals([...actual.keys()].sort(), [...expected.keys()].sort());
      const used = new Set<string>();
      const problems: string[] = [];
      for (const [id, members] of expected) {
        assertEquals([...actual.get(id)!.keys()].sort(), [...members.keys()].sort());
        for (const [column, c] of members) {
          const w = actual.get(id)!.get(column)!;
          if (c === w) continue;
          const rule = JSON_RULES.find((candidate) => candidate.applies(TYPES[column], c, w));
          if (rule === undefined) problems.push(`row ${id}, ${column}: SELECT JSON ${c}, cqlwire ${w}`);
          else used.add(rule.name);
        }
      }
      assertEquals(problems, []);
      assertEquals([...used].sort(), JSON_RULES.map((rule) => rule.name).sort(), "documented differences that no longer occur");
    });

    await t.step("errors: the server's message, exit 1, and the first error stops the input", async () => {
      const cqlsh = (await Deno.readTextFile(`${DATA}/cqlsh_errors.txt`)).trim().split("\n");
      assertEquals(cqlsh.pop(), "exit 2");
      const statements = (await Deno.readTextFile(`${DATA}/query_diff_errors.cql`)).trim().split("\n");
      assertEquals(statements.length, cqlsh.length);
      for (const [i, statement] of statements.entries()) {
        const syntax = /:SyntaxException: (.*)$/.exec(cqlsh[i]);
        const invalid = /:InvalidRequest: Error from server: code=2200 \[Invalid query\] message="(.*)"$/.exec(cqlsh[i]);
        assert(syntax !== null || invalid !== null, cqlsh[i]);
        const expected = syntax !== null ? `SyntaxError (0x2000) from 127.0.0.1:9042: ${syntax[1]}` : `Invalid (0x2200) from 127.0.0.1:9042: ${invalid![1]}`;
        const result = await runCli(["query", statement.replace(/;$/, "")]);
        assertEquals([result.code, result.stdout, result.stderr], [1, "", `error: ${expected}\n`], statement);
      }
      // cqlsh goes on after an error (and exits 2 at the end); cqlwire stops at the first.
      // cqlsh names the file and line (the one after the statement); cqlwire the line where it starts.
      const whole = await runCli(["query", "-f", `${DATA}/query_diff_errors.cql`]);
      const first = /:SyntaxException: (.*)$/.exec(cqlsh[0])![1];
      assert(cqlsh[0].endsWith(`query_diff_errors.cql:2:SyntaxException: ${first}`), cqlsh[0]);
      assertEquals(
        [whole.code, whole.stdout, whole.stderr],
        [1, "", `error: ${DATA}/query_diff_errors.cql:1: SyntaxError (0x2000) from 127.0.0.1:9042: ${first} (in "${statements[0].replace(/;$/, "")}"); 5 later statements not run\n`],
      );
    });
  },
});
