// Micro-benchmark of RESULT Rows decoding: two 5000-row pages, with rows built by the
// generated object-literal factory and by plain assignment.
// Run: deno bench -A tests/ts/codec_bench.ts   (one iteration = one page of 5000 rows)
import { parseResult, Writer } from "../../driver/src/codec/mod.ts";
import { setRowCodegen } from "../../driver/src/codec/result.ts";

const ROWS = 5000;

function page(columns: [string, number][], writeRow: (w: Writer, i: number) => void): Uint8Array {
  const w = new Writer(1 << 20);
  w.i32(2); // Rows
  w.i32(1); // Global_tables_spec
  w.i32(columns.length);
  w.string("bench");
  w.string("t");
  for (const [name, type] of columns) {
    w.string(name);
    w.u16(type);
  }
  w.i32(ROWS);
  for (let i = 0; i < ROWS; i++) writeRow(w, i);
  return w.toBytes();
}

const blob = new Uint8Array(32).map((_, i) => i * 7);
const keyBlobPage = page([["id", 0x0002], ["data", 0x0003]], (w, i) => {
  w.i32(8);
  w.i64(BigInt(i) * 1_000_003n);
  w.i32(32);
  w.raw(blob);
});

const text = ["alice", "bob", "carol-the-administrator", "dave"];
const mixedPage = page([["n", 0x0009], ["name", 0x000d], ["score", 0x0007], ["id", 0x000c], ["at", 0x000b]], (w, i) => {
  w.i32(4);
  w.i32(i);
  const lengthAt = w.reserve(4);
  w.patchI32(lengthAt, w.utf8(`${text[i % 4]}-${i}`));
  w.i32(8);
  w.f64(i * 0.25);
  w.i32(16);
  for (let b = 0; b < 16; b++) w.u8((i * 31 + b * 17) & 0xff);
  w.i32(8);
  w.i64(1_700_000_000_000n + BigInt(i));
});

let sink = 0;
function decode(body: Uint8Array): void {
  const result = parseResult(body, 4);
  if (result.kind !== "rows" || result.rows.length !== ROWS) throw new Error("bad page");
  sink += result.rows.length;
}

for (const [label, body] of [["(bigint, blob(32))", keyBlobPage], ["(int, text, double, uuid, timestamp)", mixedPage]] as const) {
  Deno.bench({
    name: `${label} generated rows`,
    group: label,
    baseline: true,
    fn: () => {
      setRowCodegen(true);
      decode(body);
    },
  });
  Deno.bench({
    name: `${label} assigned rows`,
    group: label,
    fn: () => {
      setRowCodegen(false);
      decode(body);
    },
  });
}

// ns/row summary: median of timed pages after warm-up, printed once.
function nsPerRow(body: Uint8Array, codegen: boolean): number {
  setRowCodegen(codegen);
  for (let i = 0; i < 50; i++) decode(body);
  const samples: number[] = [];
  for (let i = 0; i < 60; i++) {
    const start = performance.now();
    decode(body);
    samples.push(((performance.now() - start) * 1e6) / ROWS);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}
for (const [label, body] of [["(bigint, blob(32))", keyBlobPage], ["(int, text, double, uuid, timestamp)", mixedPage]] as const) {
  console.log(`${label}: generated ${nsPerRow(body, true).toFixed(0)} ns/row, assigned ${nsPerRow(body, false).toFixed(0)} ns/row`);
}
setRowCodegen(true);
if (sink < 0) console.log(sink);
