// The RESULT frame vectors (tests/vectors/frames.json, made with the python driver by
// tests/vectors/gen/frames.py) through the TypeScript decoder, which reads every RESULT body
// the core hands over: whole, every cut of the body (refused by name, never a crash) and with
// a trailing byte (refused at that byte: a body is consumed exactly). ERROR and EVENT frames
// are decoded by the core: tests/wire/frames_test.ts runs those through the driver.
// Run: deno test -A tests/ts/frames_test.ts
import {
  type ColumnSpec,
  CqlProtocolError,
  formatCqlType,
  parseCqlType,
  parseResult,
  type TypeInfo,
} from "../../driver/src/codec/mod.ts";
import { assertExact } from "../exact.mjs";
import { toCanonical } from "./canonical.ts";

interface FrameVector {
  name: string;
  protocol: number;
  opcode: string;
  hex: string;
  expect: Record<string, unknown>;
}

const HEADER_LEN = 9;
const hexToBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

async function resultVectors(): Promise<FrameVector[]> {
  const url = new URL("../vectors/frames.json", import.meta.url);
  const all: FrameVector[] = JSON.parse(await Deno.readTextFile(url));
  const results = all.filter((v) => v.opcode === "RESULT");
  if (results.length < 25) throw new Error(`frames.json holds ${results.length} RESULT vectors`);
  return results;
}

/**
 * The wire's [option] says nothing of frozenness (a nested collection is frozen by rule, which
 * this codec does not write into types read off the wire), so types compare without it.
 */
function thawed(t: TypeInfo): TypeInfo {
  switch (t.kind) {
    case "list":
    case "set":
      return { ...t, element: thawed(t.element), frozen: false };
    case "map":
      return { ...t, key: thawed(t.key), value: thawed(t.value), frozen: false };
    case "tuple":
      return { ...t, elements: t.elements.map(thawed), frozen: false };
    case "udt":
      return { ...t, fields: t.fields.map((f) => ({ ...f, type: thawed(f.type) })), frozen: false };
    case "vector":
      return { ...t, element: thawed(t.element) };
    default:
      return t;
  }
}

const typeText = (t: TypeInfo) => formatCqlType(thawed(t), { udt: "expanded" });

/** A column spec as the vectors write it, its type in this codec's printed form. */
const columnJson = (c: ColumnSpec) => ({ keyspace: c.keyspace, table: c.table, name: c.name, type: typeText(c.type) });

function normaliseColumns(columns: unknown): unknown {
  return (columns as Array<Record<string, string>>).map((c) => ({ ...c, type: typeText(parseCqlType(c.type)) }));
}

/** The decoded result in the vectors' JSON form. */
function resultJson(body: Uint8Array, protocol: number): unknown {
  const r = parseResult(body, protocol);
  switch (r.kind) {
    case "rows": {
      const out: Record<string, unknown> = {
        kind: "rows",
        columns: r.columns.map(columnJson),
        rows: r.rows.map((row) => r.columns.map((c) => toCanonical(c.type, row[c.name]))),
        pageState: r.pageState === null ? null : toHex(r.pageState),
      };
      if (r.newMetadataId !== undefined) out.newMetadataId = toHex(r.newMetadataId);
      return out;
    }
    case "prepared":
      return {
        kind: "prepared",
        id: toHex(r.id),
        resultMetadataId: r.resultMetadataId === null ? null : toHex(r.resultMetadataId),
        bindColumns: r.bindColumns.map(columnJson),
        pkIndexes: r.pkIndexes,
        resultColumns: r.resultColumns.map(columnJson),
      };
    default:
      return { ...r };
  }
}

function expected(v: FrameVector): unknown {
  const e = { ...v.expect };
  for (const key of ["columns", "bindColumns", "resultColumns"]) {
    if (key in e) e[key] = normaliseColumns(e[key]);
  }
  return e;
}

/** The check a trailing byte after each kind of body trips. */
const END_CHECK: Record<string, string> = {
  void: "void result",
  rows: "rows result",
  setKeyspace: "set_keyspace result",
  prepared: "prepared result",
  schemaChange: "schema_change result",
};

function refusal(fn: () => unknown): CqlProtocolError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CqlProtocolError) return e;
    throw new Error(`threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
  }
  throw new Error("decoded without an error");
}

Deno.test("frames.json RESULT bodies: whole, every cut and a trailing byte", async () => {
  const failures: string[] = [];
  for (const v of await resultVectors()) {
    try {
      const bytes = hexToBytes(v.hex);
      const body = bytes.subarray(HEADER_LEN);
      assertExact(bytes.length - HEADER_LEN, new DataView(bytes.buffer).getUint32(5), `${v.name}: body length`);
      assertExact(resultJson(body, v.protocol), expected(v), v.name);
      for (let cut = 0; cut < body.length; cut++) {
        const e = refusal(() => parseResult(body.slice(0, cut), v.protocol));
        if (e.offset === null || e.offset > cut) throw new Error(`${v.name} cut at ${cut}: offset ${e.offset} past the input`);
      }
      const longer = new Uint8Array(body.length + 1);
      longer.set(body);
      const e = refusal(() => parseResult(longer, v.protocol));
      assertExact([e.side, e.field, e.offset], ["remote", END_CHECK[v.expect.kind as string], body.length], `${v.name} with a trailing byte`);
    } catch (e) {
      failures.push(`${v.name}: ${(e as Error).message}`);
    }
  }
  if (failures.length > 0) throw new Error(`${failures.length} failing vectors:\n  ${failures.join("\n  ")}`);
});
