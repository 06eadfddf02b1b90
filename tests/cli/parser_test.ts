// The byte-level CSV and JSON Lines parsers: record offsets, lines, chunking, and leniency.

import { CsvParser, type ParsedRecord } from "../../cli/load/csv_parser.ts";
import { JsonlLineSplitter, JsonSyntaxError, splitJsonObject } from "../../cli/load/jsonl_parser.ts";
import { assertEquals, assertThrows } from "./assert.ts";

const encoder = new TextEncoder();

function parseAll(text: string, chunkSize = Infinity, format = { delimiter: ",", quote: '"' }): ParsedRecord[] {
  const bytes = encoder.encode(text);
  const parser = new CsvParser(format, 0, 1);
  const records: ParsedRecord[] = [];
  const step = Number.isFinite(chunkSize) ? chunkSize : Math.max(1, bytes.length);
  for (let offset = 0; offset < bytes.length; offset += step) {
    parser.push(bytes.slice(offset, offset + step));
    records.push(...parser.drain());
  }
  parser.finish();
  records.push(...parser.drain());
  return records;
}

const SAMPLE = 'id,name\r\n1,"multi\nline ""quoted"""\n# not a comment without --comment\n\n2,\n3,""\n4,ünï😀\n5,"x"';

Deno.test("records know their byte offsets, lines and quoting, whatever the chunking", () => {
  const whole = parseAll(SAMPLE);
  assertEquals(whole.map((r) => r.raw), [
    "id,name",
    '1,"multi\nline ""quoted"""',
    "# not a comment without --comment",
    "2,",
    '3,""',
    "4,ünï😀",
    '5,"x"',
  ]);
  assertEquals(whole.map((r) => r.line), [1, 2, 4, 6, 7, 8, 9]);
  assertEquals(whole[1].fields, [{ text: "1", quoted: false }, { text: 'multi\nline "quoted"', quoted: true }]);
  assertEquals(whole[4].fields[1], { text: "", quoted: true });
  assertEquals(whole[5].fields[1].text, "ünï😀");
  const bytes = encoder.encode(SAMPLE);
  for (const record of whole) {
    // The bytes between offset and end are the record plus its terminator.
    const text = new TextDecoder().decode(bytes.subarray(record.offset, record.end));
    assertEquals(text.replace(/\r?\n$/, ""), record.raw);
  }
  assertEquals(whole[whole.length - 1].end, bytes.length);
  for (const size of [1, 2, 3, 7, 64]) {
    assertEquals(parseAll(SAMPLE, size), whole, `chunks of ${size} bytes`);
  }
});

Deno.test("CR, LF and CRLF terminators, blank and comment lines, and line counting", () => {
  const records = parseAll('h,v\r\n1,"a\r\nb\nc"\r\n# note\r\n\r\n2,x\r3,"\r\n"\n4,y', Infinity, {
    delimiter: ",",
    quote: '"',
    comment: "#",
  } as never);
  assertEquals(records.map((r) => r.line), [1, 2, 7, 8, 10]);
  assertEquals(records.map((r) => r.nextLine), [2, 5, 8, 10, 10]);
  assertEquals(records[1].fields[1].text, "a\r\nb\nc");
  assertEquals(records.map((r) => r.raw), ["h,v", '1,"a\r\nb\nc"', "2,x", '3,"\r\n"', "4,y"]);
});

Deno.test("leniency: stray quotes are text, text after a closing quote is kept", () => {
  const [record] = parseAll('ab"c,"x"y,"",d');
  assertEquals(record.fields, [
    { text: 'ab"c', quoted: false },
    { text: "xy", quoted: true },
    { text: "", quoted: true },
    { text: "d", quoted: false },
  ]);
});

Deno.test("an escape character other than the quote, and other delimiters", () => {
  const [, record] = parseAll(
    "a;b\n'x;y';'it\\'s \\\\ \\n'\n",
    Infinity,
    { delimiter: ";", quote: "'", escape: "\\" } as never,
  );
  assertEquals(record.fields.map((f) => f.text), ["x;y", "it's \\ \\n"]);
  const [tsv] = parseAll("a\tb c\t\n", Infinity, { delimiter: "\t", quote: '"' });
  assertEquals(tsv.fields.map((f) => f.text), ["a", "b c", ""]);
});

Deno.test("an unclosed quote makes the rest of the input one malformed record", () => {
  const records = parseAll('a,b\n1,ok\n2,"never closed\n3,x\n', 5);
  assertEquals(records.length, 3);
  assertEquals(records[2].raw, '2,"never closed\n3,x');
  assertEquals(records[2].line, 3);
  assertEquals(typeof records[2].malformed, "string");
});

Deno.test("a parser started at an offset reports absolute offsets and the given line", () => {
  const parser = new CsvParser({ delimiter: ",", quote: '"' }, 1000, 40);
  parser.push(encoder.encode("7,x\n8,y"));
  parser.finish();
  const records = parser.drain();
  assertEquals(records.map((r) => [r.offset, r.end, r.line]), [[1000, 1004, 40], [1004, 1007, 41]]);
});

Deno.test("structural characters must be ASCII and distinct", () => {
  assertThrows(() => new CsvParser({ delimiter: "§", quote: '"' }, 0, 1), RangeError, /ASCII/);
  assertThrows(() => new CsvParser({ delimiter: '"', quote: '"' }, 0, 1), RangeError, /must differ/);
});

Deno.test("JSON Lines: lines with offsets, blank lines skipped but counted, CRLF", () => {
  const text = '{"a":1}\r\n\n  \n{"a":"ü"}\n{"a":3}';
  const bytes = encoder.encode(text);
  for (const size of [1, 3, 100]) {
    const splitter = new JsonlLineSplitter(0, 1);
    const lines = [];
    for (let offset = 0; offset < bytes.length; offset += size) {
      splitter.push(bytes.slice(offset, offset + size));
      lines.push(...splitter.drain());
    }
    splitter.finish();
    lines.push(...splitter.drain());
    assertEquals(lines.map((l) => [l.raw, l.line, l.offset, l.end]), [
      ['{"a":1}', 1, 0, 9],
      ['{"a":"ü"}', 4, 13, 24],
      ['{"a":3}', 5, 24, 31],
    ]);
  }
});

Deno.test("JSON objects split into members, keeping number and nested text exact", () => {
  const members = splitJsonObject(
    '{"k": 9223372036854775807, "s": "a\\"b\\u00e9", "n": null, "l": [1, {"x": [2]}], "b": true, "d": -1.5e3}',
  );
  assertEquals([...members.entries()], [
    ["k", { kind: "text", value: "9223372036854775807" }],
    ["s", { kind: "string", value: 'a"bé' }],
    ["n", { kind: "null" }],
    ["l", { kind: "text", value: '[1, {"x": [2]}]' }],
    ["b", { kind: "text", value: "true" }],
    ["d", { kind: "text", value: "-1.5e3" }],
  ]);
  assertEquals(splitJsonObject(" {} ").size, 0);
  for (const bad of ["[1]", '{"a":1', '{"a" 1}', '{"a":1,}', '{"a":tru}', '{"a":1} x', '{"a":1,"a":2}', "{a:1}"]) {
    assertThrows(() => splitJsonObject(bad), JsonSyntaxError);
  }
});
