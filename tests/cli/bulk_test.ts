// load, unload, count and bench against the real local Cassandra (scripts/cassandra start),
// in a keyspace of their own. They need the server: there is no switch that skips them.

import { assert, assertEquals, assertMatch, assertStringIncludes } from "./assert.ts";
import { type CliResult, CQLWIRE, runCli } from "./run.ts";

const KEYSPACE = "cqlwire_cli_bulk";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const table = (name: string) => `${KEYSPACE}.${name}_${RUN}`;

const TYPES_COLUMNS =
  "id int, seq bigint, label text, t text, a ascii, ti tinyint, si smallint, i int, bi bigint, vi varint, " +
  "f float, d double, dec decimal, b boolean, ts timestamp, dt date, tm time, u uuid, tu timeuuid, ip inet, " +
  "bl blob, du duration, l list<int>, s set<text>, m map<text, int>, tup frozen<tuple<int, text>>, " +
  "v vector<float, 3>, addr frozen<address>, PRIMARY KEY (id, seq, label)";
const TYPES_HEADER = "id,seq,label,t,a,ti,si,i,bi,vi,f,d,dec,b,ts,dt,tm,u,tu,ip,bl,du,l,s,m,tup,v,addr";
const TYPES_ROWS = [
  `1,10,basic,"She said ""hi"", then left",plain ascii,-128,-32768,-2147483648,9223372036854775807,` +
  `-123456789012345678901234567890,1.1,-0.000123,123.4500,yes,2024-05-01T12:30:15.250Z,2024-02-29,` +
  `08:12:54.123456789,123e4567-e89b-12d3-a456-426614174000,50554d6e-29bb-11e5-b345-feff819cdc9f,192.168.1.10,` +
  `0xCAFE00,1h30m,"[1, 2, 3]","{'b', 'a'}","{'k1': 1, 'k2': -2}","(7, 'seven')","[1.5, -2, 300]",` +
  `"{street: '1 Main St', zip: 12345}"`,
  `2,20,ünïcødé 😀 日本語,"line1\nline2\r\nline3, with ""quotes""","",,,,,,,,,,,,,,,,,,"[4,5]","[""z""]",` +
  `"{""x"":1}",,,"{""street"": ""Öster \\""gatan"", ""zip"": null}"`,
  `3,-9223372036854775808,empty-vs-null,,"",127,,42,,0,-Infinity,NaN,0.000,f,0,1970-01-01,00:00,,,::1,0x,` +
  `-P1Y2M3DT4H5M6S,[],{},{},,,`,
  `4,1,floats,,,,,,,99999999999999999999999999999999,3.4028235e38,1.7976931348623157e308,` +
  `-1.00000000000000000001E+30,true,1969-12-31T23:59:59.999Z,,,,,2001:db8::ff00:42:8329,,,,,,"(null, '')",` +
  `"[1e-45, -0, 0.1]",`,
];

function describe(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout.slice(0, 3000)}\nstderr: ${result.stderr.slice(0, 3000)}`;
}

/** Commands run here, so that default output directories (./cqlwire-logs) stay out of the checkout. */
const SCRATCH = await Deno.makeTempDir({ prefix: "cqlwire-bulk-cwd-" });

async function cli(args: string[], options: Parameters<typeof runCli>[1] = {}, expectedCode = 0): Promise<CliResult> {
  const result = await runCli(args, { cwd: SCRATCH, ...options });
  assertEquals(result.code, expectedCode, `${args.join(" ")}\n${describe(result)}`);
  return result;
}

async function waitForTable(name: string): Promise<void> {
  for (let attempt = 0;; attempt++) {
    const result = await runCli(["query", `SELECT * FROM ${name} LIMIT 1`], { cwd: SCRATCH });
    if (result.code === 0) return;
    if (attempt >= 20) throw new Error(`table ${name} never became queryable: ${describe(result)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function parseJsonExact(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) => {
    if (
      typeof value === "number" && context?.source && /^-?[0-9]+$/.test(context.source) && !Number.isSafeInteger(value)
    ) {
      return BigInt(context.source);
    }
    return value;
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

async function rowsOf(statement: string): Promise<Array<Record<string, unknown>>> {
  const result = await cli(["query", "--format", "json", statement]);
  return parseJsonExact(result.stdout) as Array<Record<string, unknown>>;
}

/** The rows of a table as sorted JSON lines, for comparing two tables' contents exactly. */
async function contentOf(name: string): Promise<string[]> {
  const result = await cli(["unload", "--table", name, "--format", "jsonl", "--quiet"]);
  return result.stdout.split("\n").filter((line) => line !== "").sort();
}

async function count(name: string): Promise<bigint> {
  const result = await cli(["count", "--table", name]);
  return BigInt(result.stdout.trim());
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Rows whose CSV text is exactly what unload writes for them, so contents can be hashed. */
function canonicalRows(total: number): { header: string; lines: string[] } {
  const base = Date.UTC(2024, 0, 1);
  const lines: string[] = [];
  for (let i = 0; i < total; i++) {
    lines.push(`${i},name-${i},${i / 8},${new Date(base + i * 1001).toISOString()}`);
  }
  return { header: "id,name,score,ts", lines };
}

/** Starts a load, kills it with SIGKILL after `killAfterMs`, and returns how it ended. */
async function loadAndKill(args: string[], killAfterMs: number): Promise<{ killed: boolean; code: number }> {
  const child = new Deno.Command(CQLWIRE, { args, cwd: SCRATCH, stdout: "null", stderr: "null", stdin: "null" })
    .spawn();
  let killed = false;
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
      killed = true;
    } catch {
      // It finished first.
    }
  }, killAfterMs);
  const status = await child.status;
  clearTimeout(timer);
  return { killed: killed && status.signal === "SIGKILL", code: status.code };
}

Deno.test({
  name: "bulk commands against a live Cassandra",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-bulk-" });
    const tables = {
      inputs: table("inputs"),
      custom: table("custom"),
      batched: table("batched"),
      killed: table("killed"),
      killedCore: table("killed_core"),
      counters: table("counters"),
      types: table("types"),
      copyCsv: table("copy_csv"),
      copyJson: table("copy_json"),
      copyDir: table("copy_dir"),
    };
    try {
      await t.step("setup", async () => {
        const script = `
          CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE}
            WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
          CREATE TYPE IF NOT EXISTS ${KEYSPACE}.address (street text, zip int);
          CREATE TABLE ${tables.inputs} (k bigint PRIMARY KEY, name text, score double, tags list<int>, origin text);
          CREATE TABLE ${tables.custom} (id int, day date, note text, hits set<text>, PRIMARY KEY (id, day));
          CREATE TABLE ${tables.batched} (p int, c int, v text, PRIMARY KEY (p, c));
          CREATE TABLE ${tables.killed} (id bigint PRIMARY KEY, name text, score double, ts timestamp);
          CREATE TABLE ${tables.killedCore} (id bigint PRIMARY KEY, name text, score double, ts timestamp);
          CREATE TABLE ${tables.counters} (id bigint PRIMARY KEY, hits counter);
          CREATE TABLE ${tables.types} (${TYPES_COLUMNS});
          CREATE TABLE ${tables.copyCsv} (${TYPES_COLUMNS});
          CREATE TABLE ${tables.copyJson} (${TYPES_COLUMNS});
          CREATE TABLE ${tables.copyDir} (${TYPES_COLUMNS});
        `;
        await cli(["query", "-"], { stdin: script });
        for (const name of Object.values(tables)) await waitForTable(name);
      });

      await t.step("load reads globs, directories, .gz, stdin, JSON Lines and TSV", async () => {
        await Deno.mkdir(`${work}/in/sub`, { recursive: true });
        await Deno.writeTextFile(`${work}/in/a.csv`, "k,name,score\n1,a,1.5\n2,b,2.5\n");
        await Deno.writeTextFile(`${work}/in/b.csv`, "k,name,score\n3,c,3.5\n");
        await Deno.writeFile(
          `${work}/in/sub/c.csv.gz`,
          new Blob(["k,name,score\n4,d,4.5\n"]).stream().pipeThrough(new CompressionStream("gzip")),
        );
        await Deno.writeTextFile(
          `${work}/in/e.jsonl`,
          '{"k": 5, "name": "e", "tags": [1, 2], "unknown": true}\n\n{"k": 9223372036854775807, "score": "NaN"}\n',
        );
        const glob = await cli(["load", `${work}/in/*.csv`, "--table", tables.inputs, "--json", "--quiet"]);
        assertEquals(JSON.parse(glob.stdout).rowsLoaded, 3);
        const dir = await cli(["load", `${work}/in/sub`, "--table", tables.inputs, "--json", "--quiet"]);
        assertEquals(JSON.parse(dir.stdout).rowsLoaded, 1);
        const jsonl = await cli(["load", `${work}/in/e.jsonl`, "--table", tables.inputs, "--json", "--quiet"]);
        assertEquals(JSON.parse(jsonl.stdout).rowsLoaded, 2);
        await cli(["load", "-", "--table", tables.inputs, "--delimiter", "\\t", "--set", "origin=stdin", "--quiet"], {
          stdin: "k\tname\n6\tsix\n",
        });
        const gzipped = new Uint8Array(
          await new Response(
            new Blob(['{"k": 7, "name": "seven"}\n']).stream().pipeThrough(new CompressionStream("gzip")),
          ).arrayBuffer(),
        );
        const child = new Deno.Command(CQLWIRE, {
          args: ["load", "-", "--format", "jsonl", "--table", tables.inputs, "--quiet"],
          cwd: SCRATCH,
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const writer = child.stdin.getWriter();
        await writer.write(gzipped);
        await writer.close();
        const piped = await child.output();
        assertEquals(piped.code, 0, new TextDecoder().decode(piped.stderr));
        const rows = await rowsOf(`SELECT k, name, score, tags, origin FROM ${tables.inputs}`);
        rows.sort((a, b) => (BigInt(a.k as number) < BigInt(b.k as number) ? -1 : 1));
        assertEquals(rows, [
          { k: 1, name: "a", score: 1.5, tags: null, origin: null },
          { k: 2, name: "b", score: 2.5, tags: null, origin: null },
          { k: 3, name: "c", score: 3.5, tags: null, origin: null },
          { k: 4, name: "d", score: 4.5, tags: null, origin: null },
          { k: 5, name: "e", score: null, tags: [1, 2], origin: null },
          { k: 6, name: "six", score: null, tags: null, origin: "stdin" },
          { k: 7, name: "seven", score: null, tags: null, origin: null },
          { k: 9223372036854775807n, name: null, score: "NaN", tags: null, origin: null },
        ]);
      });

      await t.step("load --query with named markers, --ttl, --timestamp, --skip and --dry-run", async () => {
        await Deno.writeTextFile(
          `${work}/custom.csv`,
          "id,when,note,junk\n1,2024-01-02,first,x\n2,2024-01-03,second,y\n",
        );
        await cli([
          "load",
          `${work}/custom.csv`,
          "--query",
          `UPDATE ${tables.custom} USING TTL 3600 SET note = :note, hits = hits + {'import'} WHERE id = :id AND day = :day`,
          "--map",
          "id=id,when=day,note=note",
          "--quiet",
        ]);
        const custom = await rowsOf(`SELECT id, day, note, hits, TTL(note) AS ttl FROM ${tables.custom}`);
        custom.sort((a, b) => Number(a.id) - Number(b.id));
        assertEquals(custom.map((row) => [row.id, row.day, row.note, row.hits]), [
          [1, "2024-01-02", "first", ["import"]],
          [2, "2024-01-03", "second", ["import"]],
        ]);
        assert(Number(custom[0].ttl) > 3500 && Number(custom[0].ttl) <= 3600, `ttl ${custom[0].ttl}`);

        await Deno.writeTextFile(`${work}/plain.csv`, "id,day,note,junk\n3,2024-02-01,third,z\n");
        await cli([
          "load",
          `${work}/plain.csv`,
          "--table",
          tables.custom,
          "--skip",
          "junk",
          "--ttl",
          "120",
          "--timestamp",
          "2024-06-01T00:00:00Z",
          "--quiet",
        ]);
        const [row] = await rowsOf(`SELECT TTL(note) AS ttl, WRITETIME(note) AS wt FROM ${tables.custom} WHERE id = 3`);
        assert(Number(row.ttl) > 100 && Number(row.ttl) <= 120, `ttl ${row.ttl}`);
        assertEquals(row.wt, 1717200000000000);

        await Deno.writeTextFile(`${work}/dry.csv`, "id,day,note\n10,2024-01-01,ok\n11,not-a-date,bad\n");
        const dry = await cli(
          ["load", `${work}/dry.csv`, "--table", tables.custom, "--dry-run", "--json", "--bad-dir", `${work}/bad-dry`],
          {},
          3,
        );
        const summary = JSON.parse(dry.stdout);
        // The dry run is the core's: the same reader and converter as the load itself.
        assertEquals([summary.rowsLoaded, summary.badRows, summary.dryRun], [1, 1, true]);
        assertEquals((await rowsOf(`SELECT id FROM ${tables.custom} WHERE id IN (10, 11)`)).length, 0);
      });

      await t.step("batches by partition and by replica, --rate and --split i/n", async () => {
        const lines = ["p,c,v"];
        for (let i = 0; i < 3000; i++) lines.push(`${i % 50},${i},value ${i}`);
        await Deno.writeTextFile(`${work}/batched.csv`, lines.join("\n") + "\n");
        for (const by of ["partition", "replica"]) {
          await cli(["query", `TRUNCATE ${tables.batched}`]);
          const result = await cli([
            "load",
            `${work}/batched.csv`,
            "--table",
            tables.batched,
            "--batch-size",
            "25",
            "--batch-by",
            by,
            "--json",
            "--quiet",
          ]);
          assertEquals(JSON.parse(result.stdout).rowsLoaded, 3000, `by ${by}`);
          assertEquals(await count(tables.batched), 3000n, `by ${by}`);
        }
        // --rate loads every row through the core path; how long each wait is, exactly, is
        // checked on a simulated clock (core_path_test.ts: "--rate waits exactly each piece's
        // share of a second"), not against the wall clock of a shared machine.
        await Deno.writeTextFile(`${work}/rated.csv`, lines.slice(0, 601).join("\n") + "\n");
        const rated = await cli(["load", `${work}/rated.csv`, "--table", tables.batched, "--rate", "1500", "--json"]);
        const ratedSummary = JSON.parse(rated.stdout);
        assertEquals([ratedSummary.rowsLoaded, ratedSummary.badRows], [600, 0]);

        await cli(["query", `TRUNCATE ${tables.batched}`]);
        const processes = [1, 2, 3].map((i) =>
          runCli(["load", `${work}/batched.csv`, "--table", tables.batched, "--split", `${i}/3`, "--json", "--quiet"], {
            cwd: SCRATCH,
          })
        );
        const results = await Promise.all(processes);
        let loaded = 0;
        for (const result of results) {
          assertEquals(result.code, 0, describe(result));
          loaded += JSON.parse(result.stdout).rowsLoaded;
        }
        assertEquals(loaded, 3000);
        assertEquals(await count(tables.batched), 3000n);
      });

      await t.step("SIGKILL at a random point, then --resume: exact count and identical content", async () => {
        const { header, lines } = canonicalRows(20_000);
        await Deno.writeTextFile(`${work}/killed.csv`, `${header}\n${lines.join("\n")}\n`);
        const args = [
          "load",
          `${work}/killed.csv`,
          "--table",
          tables.killed,
          "--checkpoint-dir",
          `${work}/ckpt`,
          "--bad-dir",
          `${work}/ckpt`,
          "--checkpoint-interval",
          "1",
          "--quiet",
        ];
        const killAfter = 700 + Math.floor(Math.random() * 1800);
        // At most 5,000 rows a second, so the load is still running when it is killed.
        const first = await loadAndKill([...args, "--rate", "5000"], killAfter);
        assert(first.killed, `the load was killed after ${killAfter} ms, not finished before`);
        const resumed = await cli([...args, "--resume", "--json"]);
        const summary = JSON.parse(resumed.stdout);
        assertEquals(summary.totalRowsLoaded, 20_000, `killed after ${killAfter} ms: ${first.killed}`);
        assertEquals(summary.badRows, 0);
        assertEquals(await count(tables.killed), 20_000n);
        const unloaded = await cli(["unload", "--table", tables.killed, "--quiet"]);
        const [unloadedHeader, ...unloadedLines] = unloaded.stdout.split("\r\n").filter((line) => line !== "");
        assertEquals(unloadedHeader, header);
        assertEquals(
          await sha256(unloadedLines.sort().join("\n")),
          await sha256([...lines].sort().join("\n")),
          `content after a kill at ${killAfter} ms`,
        );
        // A finished job resumed again has nothing left to do.
        const again = JSON.parse((await cli([...args, "--resume", "--json"])).stdout);
        assertEquals([again.rowsLoaded, again.totalRowsLoaded], [0, 20_000]);
      });

      await t.step("core path: SIGKILL mid-load, then --resume: exact rows, each bad row once", async () => {
        const { header, lines } = canonicalRows(20_000);
        const input: string[] = [];
        const badLines: Array<{ line: number; text: string }> = [];
        for (const [i, line] of lines.entries()) {
          input.push(line);
          if (i % 2000 === 1000) {
            const text = `bad-${i},oops,1,2024-01-01T00:00:00.000Z`;
            input.push(text);
            badLines.push({ line: input.length + 1, text });
          }
        }
        const path = `${work}/killed-core.csv`;
        await Deno.writeTextFile(path, `${header}\n${input.join("\n")}\n`);
        const args = [
          "load",
          path,
          "--table",
          tables.killedCore,
          "--checkpoint-dir",
          `${work}/ckpt-core`,
          "--bad-dir",
          `${work}/ckpt-core`,
          "--checkpoint-interval",
          "1",
          "--quiet",
        ];
        const killAfter = 1500 + Math.floor(Math.random() * 1500);
        // One row per request, one request at a time (loads batch rows by default), at most
        // 5,000 rows a second: the load lasts at least 4 s however fast the machine and the
        // node are, so it is killed in the middle (unpaced, 20,000 requests took 3 s here).
        const paced = ["--max-concurrency", "1", "--batch-size", "1", "--rate", "5000"];
        const first = await loadAndKill([...args, ...paced], killAfter);
        assert(first.killed, `the load was killed after ${killAfter} ms, not finished before`);
        const resumed = await cli([...args, "--resume", "--json"], {}, 3);
        const summary = JSON.parse(resumed.stdout);
        assertEquals(summary.resumed, true);
        assertEquals(summary.totalRowsLoaded, 20_000, `killed after ${killAfter} ms`);
        assertEquals(await count(tables.killedCore), 20_000n);
        const unloaded = await cli(["unload", "--table", tables.killedCore, "--quiet"]);
        const [, ...unloadedLines] = unloaded.stdout.split("\r\n").filter((line) => line !== "");
        assertEquals(
          await sha256(unloadedLines.sort().join("\n")),
          await sha256([...lines].sort().join("\n")),
          `content after a kill at ${killAfter} ms`,
        );
        const bad = await Deno.readTextFile(`${work}/ckpt-core/killed-core.bad`);
        assertEquals(bad, [header, ...badLines.map((entry) => entry.text)].join("\n") + "\n");
        const log = (await Deno.readTextFile(`${work}/ckpt-core/killed-core.errors.log`)).trimEnd().split("\n");
        assertEquals(
          log.map((entry) => entry.slice(0, entry.indexOf(" ("))),
          badLines.map((entry) => `${path}:${entry.line}: field 1`),
        );
      });

      await t.step("core path: a row of invalid UTF-8 is a bad row, copied to the .bad file byte for byte", async () => {
        const enc = new TextEncoder();
        const latin1 = Uint8Array.of(...enc.encode("9101,caf"), 0xe9, ...enc.encode(",2"));
        const input = [enc.encode("k,name,score\n9100,ok,1\n"), latin1, enc.encode("\n9102,x,3\n")];
        const path = `${work}/latin1.csv`;
        await Deno.writeFile(path, Uint8Array.from(input.flatMap((part) => [...part])));
        const args = ["load", path, "--table", tables.inputs, "--bad-dir", `${work}/latin1-bad`];
        await cli([...args, "--quiet"], {}, 3);
        const bad = await Deno.readFile(`${work}/latin1-bad/latin1.bad`);
        assertEquals(bad, Uint8Array.from([...enc.encode("k,name,score\n"), ...latin1, 0x0a]));
        const log = await Deno.readTextFile(`${work}/latin1-bad/latin1.errors.log`);
        assertEquals(log, `${path}:3: field 2 (text): column name: invalid UTF-8 at byte 3 of the field\n`);
        const loaded = await rowsOf(`SELECT k FROM ${tables.inputs} WHERE k IN (9100, 9101, 9102)`);
        assertEquals(loaded.map((row) => row.k).sort(), [9100, 9102]);
      });

      await t.step("a counter load killed and resumed never applies a row twice", async () => {
        const lines = ["id,hits"];
        for (let i = 0; i < 20_000; i++) lines.push(`${i},1`);
        await Deno.writeTextFile(`${work}/counters.csv`, lines.join("\n") + "\n");
        const args = [
          "load",
          `${work}/counters.csv`,
          "--table",
          tables.counters,
          "--checkpoint-dir",
          `${work}/ckpt-counters`,
          "--bad-dir",
          `${work}/bad-counters`,
          "--checkpoint-interval",
          "1",
          "--quiet",
        ];
        await loadAndKill(args, 700 + Math.floor(Math.random() * 1800));
        const resumed = await runCli([...args, "--resume", "--json"], { cwd: SCRATCH });
        assert(resumed.code === 0 || resumed.code === 3, describe(resumed));
        const summary = JSON.parse(resumed.stdout);
        assertEquals(summary.totalRowsLoaded + summary.uncertainRows, 20_000);
        const rows = await rowsOf(`SELECT id, hits FROM ${tables.counters}`);
        const twice = rows.filter((row) => Number(row.hits) !== 1);
        assertEquals(twice, [], "no counter was incremented twice");
        const missing = new Set(Array.from({ length: 20_000 }, (_, i) => i));
        for (const row of rows) missing.delete(Number(row.id));
        const uncertain = summary.uncertainRows > 0
          ? (await Deno.readTextFile(`${work}/bad-counters/counters.uncertain`)).trim().split("\n").slice(1)
          : [];
        assertEquals(uncertain.length, summary.uncertainRows);
        const uncertainIds = new Set(uncertain.map((line) => Number(line.split(",")[0])));
        for (const id of missing) assert(uncertainIds.has(id), `row ${id} is neither loaded nor listed as uncertain`);
      });

      await t.step("load → unload → load keeps every type, as CSV, JSON Lines and a directory", async () => {
        await Deno.writeTextFile(`${work}/types.csv`, `${TYPES_HEADER}\n${TYPES_ROWS.join("\n")}\n`);
        const loaded = await cli(["load", `${work}/types.csv`, "--table", tables.types, "--json", "--quiet"]);
        assertEquals(JSON.parse(loaded.stdout).rowsLoaded, TYPES_ROWS.length, loaded.stdout);
        const original = await contentOf(tables.types);
        assertEquals(original.length, TYPES_ROWS.length);

        await cli(["unload", "--table", tables.types, "--out", `${work}/types-out.csv`, "--quiet"]);
        await cli(["load", `${work}/types-out.csv`, "--table", tables.copyCsv, "--quiet"]);
        assertEquals(await contentOf(tables.copyCsv), original);

        await cli(["unload", "--table", tables.types, "--format", "jsonl", "--out", `${work}/types.jsonl`, "--quiet"]);
        await cli(["load", `${work}/types.jsonl`, "--table", tables.copyJson, "--quiet"]);
        assertEquals(await contentOf(tables.copyJson), original);

        await cli([
          "unload",
          "--table",
          tables.types,
          "--out",
          `${work}/types-dir/`,
          "--max-concurrency",
          "3",
          "--quiet",
        ]);
        const files = [...Deno.readDirSync(`${work}/types-dir`)].map((entry) => entry.name).sort();
        assertEquals(files, ["types_" + RUN + "-001.csv", "types_" + RUN + "-002.csv", "types_" + RUN + "-003.csv"]);
        await cli(["load", `${work}/types-dir`, "--table", tables.copyDir, "--quiet"]);
        assertEquals(await contentOf(tables.copyDir), original);

        // The text itself: bigints, varints and decimals exact, NaN and infinities, empty vs null.
        const csv = await Deno.readTextFile(`${work}/types-out.csv`);
        for (
          const piece of [
            "9223372036854775807",
            "-123456789012345678901234567890",
            "123.4500",
            ",NaN,",
            ",-Infinity,",
            ',"",',
            "0xcafe00",
            "2024-05-01T12:30:15.250Z",
            "3.4028235e38",
            "1.7976931348623157e308",
          ]
        ) {
          assertStringIncludes(csv, piece);
        }
        const query = await cli([
          "unload",
          "--query",
          `SELECT id, label FROM ${tables.types} WHERE id = 2 AND seq = 20`,
          "--format",
          "jsonl",
          "--quiet",
        ]);
        assertEquals(query.stdout, '{"id":2,"label":"ünïcødé 😀 日本語"}\n');
      });

      await t.step("count: total, by node and by range agree with the rows loaded minus bad rows", async () => {
        const lines = ["p,c,v"];
        for (let i = 0; i < 500; i++) lines.push(`${i},0,v`);
        lines.push("bad,0,v", "1,notanint,v");
        await cli(["query", `TRUNCATE ${tables.batched}`]);
        await Deno.writeTextFile(`${work}/count.csv`, lines.join("\n") + "\n");
        const loaded = await cli(
          ["load", `${work}/count.csv`, "--table", tables.batched, "--json", "--quiet", "--bad-dir", `${work}/bad-c`],
          {},
          3,
        );
        const summary = JSON.parse(loaded.stdout);
        assertEquals([summary.rowsLoaded, summary.badRows], [500, 2]);
        assertEquals(await count(tables.batched), BigInt(lines.length - 1 - summary.badRows));
        const byNode = JSON.parse((await cli(["count", "--table", tables.batched, "--by", "node", "--json"])).stdout);
        assertEquals(byNode.rows, 500);
        assertEquals(Object.values(byNode.byNode as Record<string, number>).reduce((a, b) => a + b, 0), 500);
        const byRange = JSON.parse((await cli(["count", "--table", tables.batched, "--by", "range", "--json"])).stdout);
        assertEquals(byRange.byRange.reduce((sum: number, range: { rows: number }) => sum + range.rows, 0), 500);
        assert(byRange.byRange.length >= 1);
        const text = await cli(["count", "--table", tables.batched, "--by", "node"]);
        assertMatch(text.stdout, /\| +500\n[\s\S]*total: 500 rows\n$/);
        await Deno.writeTextFile(
          `${work}/job.json`,
          JSON.stringify({
            count: { table: tables.batched, json: true },
            unload: { table: tables.batched, format: "jsonl" },
          }),
        );
        const configured = JSON.parse((await cli(["--config", `${work}/job.json`, "count"])).stdout);
        assertEquals([configured.rows, configured.table], [500, tables.batched]);
        const unloaded = await cli(["--config", `${work}/job.json`, "unload", "--quiet"]);
        assertEquals(unloaded.stdout.trim().split("\n").length, 500);
        const missing = await cli(["count", "--table", `${KEYSPACE}.no_such_table`], {}, 1);
        assertStringIncludes(missing.stderr, "does not exist");
      });

      await t.step("bench writes a results table, results.json and SVG charts", async () => {
        const out = `${work}/bench`;
        const result = await cli(["-k", KEYSPACE, "bench", "-n", "300", "--concurrency", "1,16", "--out", out]);
        assertMatch(result.stdout, /phase +\| concurrency \| ops\/s/);
        const report = JSON.parse(await Deno.readTextFile(`${out}/results.json`));
        assertEquals(report.results.length, 4);
        for (const phase of report.results) {
          assertEquals([phase.operations, phase.errors], [300, 0]);
          assert(phase.throughput > 0 && phase.latencyMs.p50 > 0 && phase.latencyMs.p99 >= phase.latencyMs.p50);
        }
        assertEquals((await rowsOf(`SELECT count(*) AS n FROM ${KEYSPACE}.kv`))[0].n, 301);
        for (const chart of ["throughput.svg", "latency.svg"]) {
          const svg = await Deno.readTextFile(`${out}/${chart}`);
          assertMatch(svg, /^<svg[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
        }
      });

      await t.step("the password never appears in any output of a load", async () => {
        const secret = "Pw-7d1e0c5b-never-printed";
        const env = { CQLWIRE_PASSWORD: secret };
        await Deno.writeTextFile(`${work}/pw.csv`, `k,name\n100,${secret.length}\nbad,x\n`);
        const outputs: string[] = [];
        const ok = await cli(
          [
            "--username",
            "loader",
            "load",
            `${work}/pw.csv`,
            "--table",
            tables.inputs,
            "--json",
            "--bad-dir",
            `${work}/pw`,
          ],
          { env },
          3,
        );
        const failing = await cli(
          ["--username", "loader", "load", `${work}/pw.csv`, "--table", `${KEYSPACE}.missing`, "--json"],
          { env },
          1,
        );
        const refused = await cli(
          [
            "--username",
            "loader",
            "--hosts",
            "127.0.0.1:1",
            "load",
            `${work}/pw.csv`,
            "--table",
            tables.inputs,
            "--json",
          ],
          { env },
          1,
        );
        for (const result of [ok, failing, refused]) outputs.push(result.stdout, result.stderr);
        for (const entry of Deno.readDirSync(`${work}/pw`)) {
          outputs.push(await Deno.readTextFile(`${work}/pw/${entry.name}`));
        }
        assert(outputs.length >= 8, "stdout, stderr and the log files were read");
        for (const text of outputs) assertEquals(text.includes(secret), false, `the password leaked into: ${text}`);
      });
    } finally {
      const drops = [...Object.values(tables), `${KEYSPACE}.kv`].map((name) => `DROP TABLE IF EXISTS ${name}`);
      await runCli(["query", drops.join(";")]);
      await Deno.remove(work, { recursive: true });
      await Deno.remove(SCRATCH, { recursive: true });
    }
  },
});
