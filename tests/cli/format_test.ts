import { parseCqlType } from "../../cli/cql_type.ts";
import {
  csvField,
  displayWidth,
  formatCqlValue,
  formatCsvHeader,
  formatCsvRow,
  formatFloat32,
  formatJsonRow,
  formatJsonValue,
  formatTable,
  type ResultColumn,
} from "../../cli/format.ts";
import { assertEquals } from "./assert.ts";

const t = (text: string) => parseCqlType(text);

/** Stands in for the driver's value classes, which print themselves through toString. */
class FakeCqlDate {
  constructor(private readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

Deno.test("CQL type text parses, frozen dropped, quoted names kept", () => {
  assertEquals(t("frozen<map<text, list<int>>>"), {
    kind: "map",
    key: { kind: "native", name: "text" },
    value: { kind: "list", element: { kind: "native", name: "int" } },
  });
  assertEquals(t("vector<float, 3>"), { kind: "vector", element: { kind: "native", name: "float" }, dimension: 3 });
  assertEquals(t(`ks."My Type"`), { kind: "udt", keyspace: "ks", name: "My Type", fields: null });
  assertEquals(t("'org.apache.cassandra.db.marshal.DynamicCompositeType(s=>UTF8Type)'"), {
    kind: "custom",
    className: "org.apache.cassandra.db.marshal.DynamicCompositeType(s=>UTF8Type)",
  });
});

Deno.test("scalars print CQL-style", () => {
  assertEquals(formatCqlValue(null, t("int")), "null");
  assertEquals(formatCqlValue("plain text", t("text")), "plain text");
  assertEquals(formatCqlValue(12345678901234567890n, t("varint")), "12345678901234567890");
  assertEquals(formatCqlValue(new Uint8Array([0, 0xab, 0xff]), t("blob")), "0x00abff");
  assertEquals(
    formatCqlValue(new Date(Date.UTC(2024, 4, 1, 12, 30, 15, 250)), t("timestamp")),
    "2024-05-01T12:30:15.250Z",
  );
  assertEquals(formatCqlValue(Math.fround(1.1), t("float")), "1.1");
  assertEquals(formatCqlValue(0.1 + 0.2, t("double")), "0.30000000000000004");
  assertEquals(formatCqlValue(NaN, t("double")), "NaN");
  assertEquals(formatCqlValue(-Infinity, t("float")), "-Infinity");
  assertEquals(formatCqlValue(true, t("boolean")), "true");
  assertEquals(formatCqlValue(new FakeCqlDate("2024-02-29"), t("date")), "2024-02-29");
});

Deno.test("float32 values print in their shortest round-trip form", () => {
  for (const text of ["1.1", "0.1", "3.4028235e+38", "1e-45", "-2.5", "16777216"]) {
    assertEquals(formatFloat32(Math.fround(Number(text))), String(Number(text)), text);
  }
});

Deno.test("collections print as CQL literals, by their declared type", () => {
  assertEquals(formatCqlValue([1, 2], t("list<int>")), "[1, 2]");
  assertEquals(formatCqlValue(["a", "it's"], t("set<text>")), "{'a', 'it''s'}");
  assertEquals(formatCqlValue(new Map([["k", 1]]), t("map<text, int>")), "{'k': 1}");
  assertEquals(formatCqlValue([1, "x", null], t("tuple<int, text, int>")), "(1, 'x', null)");
  assertEquals(formatCqlValue(new Float32Array([1.1, 2]), t("vector<float, 2>")), "[1.1, 2]");
  assertEquals(
    formatCqlValue({ street: "Main", zip: 1, "Odd Name": null }, t("address")),
    `{street: 'Main', zip: 1, "Odd Name": null}`,
  );
  assertEquals(
    formatCqlValue([new Date(0)], t("list<timestamp>")),
    "['1970-01-01T00:00:00.000Z']",
  );
  assertEquals(formatCqlValue(["10.0.0.1"], t("list<inet>")), "['10.0.0.1']");
  assertEquals(
    formatCqlValue(["5c2b2a7e-1d2e-4b0a-9c1a-2f7f5f0d2a11"], t("set<uuid>")),
    "{5c2b2a7e-1d2e-4b0a-9c1a-2f7f5f0d2a11}",
  );
});

Deno.test("JSON output keeps big integers exact and marks non-finite numbers as strings", () => {
  assertEquals(formatJsonValue(9007199254740993n, t("bigint")), "9007199254740993");
  assertEquals(formatJsonValue(NaN, t("double")), `"NaN"`);
  assertEquals(formatJsonValue(Math.fround(0.1), t("float")), "0.1");
  assertEquals(formatJsonValue(new FakeCqlDate("123.4500"), t("decimal")), "123.4500");
  assertEquals(formatJsonValue(new FakeCqlDate("2024-01-01"), t("date")), `"2024-01-01"`);
  assertEquals(formatJsonValue(new Uint8Array([1, 2]), t("blob")), `"0x0102"`);
  assertEquals(formatJsonValue(new Map([[1, ["a"]]]), t("map<int, list<text>>")), `{"1":["a"]}`);
  assertEquals(formatJsonValue(['x\n"y"'], t("list<text>")), `["x\\n\\"y\\""]`);
  const columns: ResultColumn[] = [{ name: "id", type: t("bigint") }, { name: "name", type: t("text") }];
  const json = formatJsonRow({ id: -9223372036854775808n, name: null }, columns);
  assertEquals(json, `{"id":-9223372036854775808,"name":null}`);
  // The text must still be valid JSON; JSON.parse may round the number, the text does not.
  assertEquals(Object.keys(JSON.parse(json)), ["id", "name"]);
});

Deno.test("CSV output follows RFC 4180 and keeps empty text apart from null", () => {
  assertEquals(csvField(null), "");
  assertEquals(csvField(""), `""`);
  assertEquals(csvField("plain"), "plain");
  assertEquals(csvField(`say "hi", then\nleave`), `"say ""hi"", then\nleave"`);
  const columns: ResultColumn[] = [{ name: "a,b", type: t("text") }, { name: "n", type: t("list<int>") }];
  assertEquals(formatCsvHeader(columns), `"a,b",n\r\n`);
  assertEquals(formatCsvRow({ "a,b": "", n: [1, 2] }, columns), `"","[1, 2]"\r\n`);
  assertEquals(formatCsvRow({ "a,b": null, n: null }, columns), ",\r\n");
});

Deno.test("the table is aligned like cqlsh, with wide characters and escaped newlines", () => {
  const columns: ResultColumn[] = [{ name: "release_version", type: t("text") }];
  assertEquals(
    formatTable(columns, [{ release_version: "5.0.2" }]),
    " release_version\n-----------------\n           5.0.2\n\n(1 rows)\n",
  );
  const mixed: ResultColumn[] = [{ name: "k", type: t("int") }, { name: "v", type: t("text") }];
  const table = formatTable(mixed, [{ k: 1, v: "日本" }, { k: 22, v: "a\nb" }]);
  assertEquals(table, " k  | v\n----+------\n  1 | 日本\n 22 | a\\nb\n\n(2 rows)\n");
  assertEquals(formatTable(mixed, []), " k | v\n---+---\n\n(0 rows)\n");
  assertEquals(displayWidth("e\u0301"), 1);
  assertEquals(displayWidth("😀x"), 3);
});
