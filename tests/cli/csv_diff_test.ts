// `cqlwire query --format csv` against DSBulk 1.10's `unload` (defaults) of the same table of
// every type (tests/cli/peer_tables.ts; DSBulk's file is the fixture
// tests/cli/data/dsbulk_unload_v.csv, captured by tests/cli/peers/capture.sh). Every cell must be
// DSBulk's or fall under one of the documented differences (cli/README.md), and each of those
// must still occur. Collections, tuples and UDTs must be DSBulk's text exactly in
// `unload --collection-format json`. These tests fail when no server answers.

import { assertEquals } from "./assert.ts";
import { ok } from "./cli_helpers.ts";
import { createPeerTables, DATA, KEYSPACE, V_TYPES as TYPES } from "./peer_tables.ts";

type Cell = string | null;

/** CSV with `quote` '"' and the given escape inside quotes; an empty unquoted field is null. */
function parseCsv(text: string, escape: string): Cell[][] {
  const records: Cell[][] = [];
  let record: Cell[] = [];
  let field = "";
  let quoted = false;
  let inQuotes = false;
  const endField = () => {
    record.push(quoted || field !== "" ? field : null);
    [field, quoted] = ["", false];
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inQuotes) {
      if (char === escape && (text[i + 1] === '"' || (escape !== '"' && text[i + 1] === escape))) field += text[++i];
      else if (char === '"') inQuotes = false;
      else field += char;
    } else if (char === '"' && field === "") [quoted, inQuotes] = [true, true];
    else if (char === ",") endField();
    else if (char === "\n" || (char === "\r" && text[i + 1] === "\n")) {
      if (char === "\r") i++;
      endField();
      records.push(record);
      record = [];
    } else field += char;
  }
  return records;
}

/** Rows by id: column name to cell. */
function rowsById(records: Cell[][]): Map<string, Map<string, Cell>> {
  const [header, ...rows] = records;
  return new Map(rows.map((row) => [row[0]!, new Map(header.map((name, i) => [name!, row[i]]))]));
}

const CONTAINERS = new Set(["l", "s", "m", "tp", "ud", "lt", "ms", "fl", "ss"]);

const hex = (base64: string) => Array.from(atob(base64), (c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
const ipv6 = (text: string) => new URL(`http://[${text}]/`).hostname;
const nanosOfDay = (time: string) => {
  const [hms, fraction = ""] = time.split(".");
  const [h, m, s] = hms.split(":").map(BigInt);
  return ((h * 60n + m) * 60n + s) * 1_000_000_000n + BigInt(fraction.padEnd(9, "0"));
};

/** Equal JSON but for strings that are a blob in base64 (DSBulk) and in 0x hex (cqlwire). */
function sameButBlobs(dsbulk: unknown, cqlwire: unknown): boolean {
  if (typeof dsbulk === "string" && typeof cqlwire === "string") {
    return dsbulk === cqlwire || (/^[A-Za-z0-9+/]*=*$/.test(dsbulk) && `0x${hex(dsbulk)}` === cqlwire);
  }
  if (Array.isArray(dsbulk) && Array.isArray(cqlwire)) {
    return dsbulk.length === cqlwire.length && dsbulk.every((item, i) => sameButBlobs(item, cqlwire[i]));
  }
  return JSON.stringify(dsbulk) === JSON.stringify(cqlwire);
}

interface Rule {
  name: string;
  applies(column: string, dsbulk: Cell, cqlwire: Cell, unloadJson: Cell): boolean;
}

const RULES: Rule[] = [
  { name: "boolean 1/0", applies: (c, d, w) => TYPES[c] === "boolean" && ({ "1": "true", "0": "false" } as Record<string, string>)[d!] === w },
  { name: "blob base64", applies: (c, d, w) => TYPES[c] === "blob" && d !== null && `0x${hex(d)}` === w },
  {
    name: "float and double: Java's spelling",
    applies: (c, d, w) => {
      const float = TYPES[c] === "float" ? Math.fround : (x: number) => x;
      return (TYPES[c] === "float" || TYPES[c] === "double") && d !== null && w !== null && float(Number(d)) === float(Number(w));
    },
  },
  { name: "IPv6 expanded", applies: (c, d, w) => TYPES[c] === "inet" && d !== null && w !== null && ipv6(d) === ipv6(w) },
  { name: "timestamp milliseconds always written", applies: (c, d, w) => TYPES[c] === "timestamp" && Date.parse(d!) === Date.parse(w!) },
  { name: "time fraction always nine digits", applies: (c, d, w) => TYPES[c] === "time" && nanosOfDay(d!) === nanosOfDay(w!) },
  { name: "zero duration: DSBulk's empty string", applies: (c, d, w) => TYPES[c] === "duration" && d === "" && w === "0s" },
  { name: "containers: CQL literals (--collection-format json: DSBulk's)", applies: (c, d, _w, j) => CONTAINERS.has(c) && d === j },
  {
    name: "blobs inside containers: 0x hex, DSBulk's base64",
    applies: (c, d, _w, j) => CONTAINERS.has(c) && d !== null && j !== null && sameButBlobs(JSON.parse(d), JSON.parse(j)),
  },
  {
    name: "null collection: DSBulk's [] or {}",
    applies: (c, d, w, j) => CONTAINERS.has(c) && (d === "[]" || d === "{}") && w === null && j === null,
  },
];

Deno.test({
  name: "query --format csv writes what DSBulk unloads, but for the documented differences",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await createPeerTables();
    const dsbulk = rowsById(parseCsv(await Deno.readTextFile(`${DATA}/dsbulk_unload_v.csv`), "\\"));
    const query = await ok(["query", "--format", "csv", `SELECT * FROM ${KEYSPACE}.v`]);
    const ours = rowsById(parseCsv(query.stdout, '"'));
    const unload = await ok(["unload", "--table", `${KEYSPACE}.v`, "--collection-format", "json", "--escape", "\\", "--quiet"]);
    const json = rowsById(parseCsv(unload.stdout, "\\"));
    assertEquals([...ours.keys()].sort(), [...dsbulk.keys()].sort());
    const used = new Set<string>();
    const problems: string[] = [];
    for (const [id, expected] of dsbulk) {
      const [actual, unloaded] = [ours.get(id)!, json.get(id)!];
      assertEquals([...actual.keys()], [...expected.keys()]);
      for (const [column, d] of expected) {
        const w = actual.get(column)!;
        if (d === w) continue;
        const rule = RULES.find((candidate) => candidate.applies(column, d, w, unloaded.get(column)!));
        if (rule === undefined) problems.push(`row ${id}, ${column}: DSBulk ${JSON.stringify(d)}, cqlwire ${JSON.stringify(w)}`);
        else used.add(rule.name);
      }
    }
    assertEquals(problems, []);
    assertEquals([...used].sort(), RULES.map((rule) => rule.name).sort(), "documented differences that no longer occur");
  },
});
