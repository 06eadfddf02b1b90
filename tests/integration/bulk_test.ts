/** The core's bulk path against the real Cassandra: raw bytes in, rows and bad rows out. */
import { assert, assertEquals, client, KS, withKeyspace } from "./helpers.ts";
import type { BadRowRecord } from "../../driver/deno.ts";

const enc = new TextEncoder();

async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = enc.encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

Deno.test("bulkLoad: CSV with hostile rows; good rows land exactly, bad rows come back verbatim with reasons", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`DROP TABLE IF EXISTS ${KS}.bulk`);
    await c.execute(`CREATE TABLE ${KS}.bulk (id int PRIMARY KEY, name text, score double, tags list<text>, at timestamp)`);
    const lines = ["id,name,score,tags,at"];
    for (let i = 0; i < 2000; i++) lines.push(`${i},"name ${i}, ""quoted""\nsecond line",${i / 4},"['a', 'b${i}']",2024-01-02T03:04:05.${String(i % 1000).padStart(3, "0")}Z`);
    lines.push(`2000,emoji 🎉,1.5,[],2024-01-01`);
    lines.push(`not-an-int,x,1,[],2024-01-01`);
    lines.push(`2001,too,many,fields,here,extra`);
    lines.push(`2002,,NaN,,`);
    lines.push(`${"9".repeat(30)},big,1,[],2024-01-01`);
    const text = lines.join("\n") + "\n";
    const bad: BadRowRecord[] = [];
    const state = await c.bulkLoad(chunks(text, 777), { table: `${KS}.bulk`, onBadRow: (r) => void bad.push(r) });
    assertEquals(state.status.error, null);
    assertEquals(state.counters.rowsOk, 2002, "good rows");
    assertEquals(bad.length, 3, `bad rows: ${bad.map((b) => b.reason).join(" | ")}`);
    assert(bad.every((b) => b.reason.length > 0 && b.line > 1), "each bad row has a line and a reason");
    assertEquals(new TextDecoder().decode(bad[0].raw), "not-an-int,x,1,[],2024-01-01");
    assertEquals([bad[0].kind, bad[0].column, bad[0].field], ["value", "id", 0], `names the column: ${bad[0].reason}`);
    assertEquals([bad[1].kind, bad[1].column, bad[1].reason], ["syntax", null, "expected 5 fields, found 6"]);
    assertEquals(state.counters.watermark, enc.encode(text).length, "watermark covers the whole input");
    const count = await c.execute(`SELECT count(*) FROM ${KS}.bulk`);
    assertEquals(count.first()?.count, 2002n);
    const row = (await c.execute(`SELECT * FROM ${KS}.bulk WHERE id = 7`)).first()!;
    assertEquals([row.name, row.score, row.tags, (row.at as Date).toISOString()], ['name 7, "quoted"\nsecond line', 1.75, ["a", "b7"], "2024-01-02T03:04:05.007Z"]);
    const nulls = (await c.execute(`SELECT * FROM ${KS}.bulk WHERE id = 2002`)).first()!;
    assertEquals([nulls.name, Number.isNaN(nulls.score), nulls.tags, nulls.at], [null, true, null, null]);
  } finally {
    await c.shutdown();
  }
});

Deno.test("bulkLoad: JSONL, and a row the server rejects goes to the bad rows with the server's reason", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`DROP TABLE IF EXISTS ${KS}.bulkj`);
    await c.execute(`CREATE TABLE ${KS}.bulkj (k text PRIMARY KEY, m map<text, int>, v vector<float, 3>)`);
    const rows = [];
    for (let i = 0; i < 500; i++) rows.push(JSON.stringify({ k: `k${i}`, m: { a: i, b: -i }, v: [0.5, i, -1] }));
    rows.push(`{"k": "${"x".repeat(70000)}", "m": {}}`); // a partition key over 64 KiB
    rows.push(`{"k": broken json`);
    const bad: BadRowRecord[] = [];
    const state = await c.bulkLoad(chunks(rows.join("\n") + "\n", 4096), { table: `${KS}.bulkj`, format: "jsonl", onBadRow: (r) => void bad.push(r) });
    assertEquals(state.counters.rowsOk, 500);
    assertEquals(bad.length, 2, bad.map((b) => b.reason).join(" | "));
    // The server's refusal arrives as fields: the kind and the code (0x2200 Invalid), not as words to parse.
    const refused = bad.find((b) => b.kind === "rejected");
    assertEquals([refused?.serverCode, refused?.attempts], [0x2200, 1], bad.map((b) => b.reason).join(" | "));
    assert(/key|length/i.test(refused!.reason), refused!.reason);
    assertEquals([bad.find((b) => b.kind === "syntax")?.line], [502]);
    const r = (await c.execute(`SELECT * FROM ${KS}.bulkj WHERE k = 'k3'`)).first()!;
    assertEquals([[...(r.m as Map<string, number>)], Array.from(r.v as Float32Array)], [[["a", 3], ["b", -3]], [0.5, 3, -1]]);
  } finally {
    await c.shutdown();
  }
});

Deno.test("streamCsv → bulkLoad round trip keeps every value", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    for (const t of ["rt_src", "rt_dst"]) {
      await c.execute(`DROP TABLE IF EXISTS ${KS}.${t}`);
      await c.execute(`CREATE TABLE ${KS}.${t} (id int PRIMARY KEY, s text, l list<text>, m map<text, bigint>, b blob, d decimal, t timestamp, u uuid, v vector<float, 2>)`);
    }
    const insert = `INSERT INTO ${KS}.rt_src (id, s, l, m, b, d, t, u, v) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
    for (let i = 0; i < 1200; i++) {
      await c.execute(insert, [i, i % 7 === 0 ? "" : i % 11 === 0 ? null : `s,"${i}"\n`, [`a${i}`, "b'c"], new Map([["k", BigInt(i) * 1000000000000n]]), Uint8Array.of(i & 255), `${i}.25`, new Date(i * 1000), "123e4567-e89b-12d3-a456-426614174000", Float32Array.of(i, -0.5)], { prepare: true });
    }
    const pages = c.streamCsv(`SELECT id, s, l, m, b, d, t, u, v FROM ${KS}.rt_src`, null, { pageSize: 500, header: true });
    const bytes = async function* () {
      for await (const p of pages) yield p.csv;
    };
    const state = await c.bulkLoad(bytes(), { table: `${KS}.rt_dst`, onBadRow: (r) => { throw new Error(r.reason); } });
    assertEquals(state.counters.rowsOk, 1200);
    const a = (await c.execute(`SELECT * FROM ${KS}.rt_src`, [], { pageSize: 5000 })).rows.sort((x, y) => Number(x.id) - Number(y.id));
    const b = (await c.execute(`SELECT * FROM ${KS}.rt_dst`, [], { pageSize: 5000 })).rows.sort((x, y) => Number(x.id) - Number(y.id));
    assertEquals(b, a);
  } finally {
    await c.shutdown();
  }
});

Deno.test("bulkLoad stops on an abort signal at a record boundary, with an exact watermark", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.stopped (id int PRIMARY KEY, v text)`);
    await c.execute(`TRUNCATE ${KS}.stopped`);
    const controller = new AbortController();
    const slow = async function* (): AsyncGenerator<Uint8Array> {
      yield enc.encode("id,v\n");
      for (let i = 0; i < 1000; i++) {
        // Each chunk ends mid-record, so a stop must drop the cut record, not load it short.
        yield enc.encode(`${i},value ${i}\n${i + 100000},cut-`);
        yield enc.encode(`record\n`);
        if (i === 300) controller.abort();
        await new Promise((r) => setTimeout(r, 0));
      }
    };
    const state = await c.bulkLoad(slow(), { table: `${KS}.stopped`, signal: controller.signal });
    assert(state.status.done, "finished after the stop");
    assertEquals(state.counters.rowsOk, state.counters.watermarkRowsOk, "every acknowledged row is below the watermark");
    const count = (await c.execute(`SELECT count(*) FROM ${KS}.stopped`)).first()?.count;
    assertEquals(count, BigInt(state.counters.rowsOk));
    const cut = (await c.execute(`SELECT v FROM ${KS}.stopped WHERE id = 100300`)).first();
    assert(cut === null || cut.v === "cut-record", `no short row: ${JSON.stringify(cut)}`);
  } finally {
    await c.shutdown();
  }
});

Deno.test("bulkLoad with a statement of the caller's: rows of one partition share batches, and the last row of a repeated key wins", async () => {
  const c = client();
  try {
    await withKeyspace(c);
    await c.execute(`DROP TABLE IF EXISTS ${KS}.bulk_query`);
    await c.execute(`CREATE TABLE ${KS}.bulk_query (p int, c int, v int, PRIMARY KEY (p, c))`);
    // 640 rows in 2 partitions, clustering keys 0..319 each, then every key of partition 0
    // again with another value: the key columns come from system_schema (no keyColumns given).
    const lines = ["p,c,v"];
    for (let c = 0; c < 320; c++) lines.push(`0,${c},${c}`, `1,${c},${c}`);
    for (let c = 0; c < 320; c++) lines.push(`0,${c},${1000 + c}`);
    const sent = () => c.getMetrics().core.requests as number;
    const before = sent();
    const state = await c.bulkLoad(chunks(lines.join("\n") + "\n", 4096), {
      query: `INSERT INTO ${KS}.bulk_query (p, c, v) VALUES (?, ?, ?)`,
      maxConcurrency: 256,
    });
    assertEquals([state.status.error, state.counters.rowsOk, state.counters.rowsBad], [null, 960, 0]);
    // Partition-only keys would send every row alone (960 requests); batches of up to 32 rows
    // of one partition need far fewer.
    const requests = sent() - before;
    assert(requests < 960 / 4, `rows of one partition share batches: ${requests} requests for 960 rows`);
    const rows = (await c.execute(`SELECT c, v FROM ${KS}.bulk_query WHERE p = 0`)).rows.map((r) => [r.c, r.v]);
    assertEquals(rows, Array.from({ length: 320 }, (_, c) => [c, 1000 + c]));
  } finally {
    await c.shutdown();
  }
});
