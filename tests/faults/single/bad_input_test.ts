/**
 * Bad input files: every bad row goes to the bad file with its reason, the load goes on, and
 * the exit code is 3 ("done with bad rows"). Also a single line of 1 GiB, which must not be
 * held in memory whole.
 */
import {
  assert,
  assertEquals,
  cliHosts,
  describeRun,
  directClient,
  ensureKeyspace,
  KEYSPACE,
  type Measured,
  runCli,
  scenario,
  TARGET,
  tempDir,
  writeAll,
} from "../helpers.ts";

const EXIT_BAD_ROWS = 3;
/** Cassandra 5 refuses mutations over half its 32 MiB commit log segment and frames over 16 MiB. */
const OVERSIZED_VALUE_BYTES = 20 * 2 ** 20;
const HUGE_LINE_BYTES = Number(Deno.env.get("CQLWIRE_FAULTS_HUGE_LINE_BYTES") ?? 2 ** 30);
/** A loader that streams holds a bounded slice of a line, not the line. */
const HUGE_LINE_RSS_LIMIT_MB = 1024;

const enc = new TextEncoder();

async function freshBadInputTable(name: string): Promise<string> {
  const c = directClient();
  try {
    await ensureKeyspace(c);
    const table = `${KEYSPACE}.${name}`;
    await c.execute(`DROP TABLE IF EXISTS ${table}`);
    await c.execute(`CREATE TABLE ${table} (id int PRIMARY KEY, n int, v text, b blob)`);
    return table;
  } finally {
    await c.shutdown();
  }
}

async function rowsOf(table: string): Promise<Array<[number, number | null, string | null, string]>> {
  const c = directClient();
  try {
    const rs = await c.execute(`SELECT id, n, v, b FROM ${table}`, [], { pageSize: 1000 });
    return rs.rows
      .map((r) =>
        [
          r.id as number,
          r.n as number | null,
          r.v as string | null,
          Array.from((r.b as Uint8Array | null) ?? [], (x) => x.toString(16)).join(""),
        ] as [number, number | null, string | null, string]
      )
      .sort((a, b) => a[0] - b[0]);
  } finally {
    await c.shutdown();
  }
}

/** The files in `dir` whose name ends with `suffix`, concatenated. */
async function readBadOutputs(dir: string, suffix: string): Promise<string> {
  let text = "";
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(suffix)) text += await Deno.readTextFile(`${dir}/${entry.name}`);
    }
  } catch {
    // No bad-dir at all: nothing was recorded.
  }
  return text;
}

scenario(
  "single",
  "bad input files: each bad row recorded, the load goes on",
  "unterminated quote, too few / too many fields, invalid UTF-8, type errors (int, blob), a 20 MiB value over the server's limits: each row in the .bad file and its line in .errors.log, the good rows loaded exactly, exit 3",
  async (m: Measured) => {
    const table = await freshBadInputTable("bad_input");
    const dir = await tempDir("bad-input");
    const csv = `${dir}/input.csv`;
    // Line numbers matter: the error log names them.
    const lines: Array<Uint8Array | string> = [
      "id,n,v,b", // 1
      "1,10,good one,0x01", // 2
      "2,abc,type error in an int,0x02", // 3
      "3,30,type error in a blob,0xZZ", // 4
      "4,40", // 5: too few fields
      "5,50,too many,0x05,extra", // 6
      Uint8Array.of(...enc.encode("6,60,bad utf-8 "), 0xff, 0xfe, 0xc3, 0x28, ...enc.encode(",0x06")), // 7
      "7,70,good seven,0x07", // 8
      `8,80,${"x".repeat(OVERSIZED_VALUE_BYTES)},0x08`, // 9: over the server's limits
      "9,90,good nine,0x09", // 10
      '10,100,"an unterminated quote runs to the end of the file,0x0a', // 11
    ];
    const badLines = [3, 4, 5, 6, 7, 9, 11];
    const file = await Deno.open(csv, { write: true, create: true, truncate: true });
    for (const line of lines) await writeAll(file, typeof line === "string" ? enc.encode(line + "\n") : Uint8Array.of(...line, 0x0a));
    file.close();
    try {
      const run = await runCli(["load", csv, "--table", table, ...cliHosts(TARGET), "--bad-dir", `${dir}/bad`, "--json", "--quiet"], {
        maxRssMb: 3072,
        timeoutMs: 180_000,
      });
      m.rowsSent = 3;
      m.peakRssMb = run.peakRssMb;
      const loaded = await rowsOf(table);
      m.rowsCounted = loaded.length;
      m.rowsLost = 3 - loaded.filter(([id]) => [1, 7, 9].includes(id)).length;
      const log = await readBadOutputs(`${dir}/bad`, ".errors.log");
      const bad = await readBadOutputs(`${dir}/bad`, ".bad");
      const missingFromLog = badLines.filter((n) => !new RegExp(`:${n}\\b`).test(log));
      const missingFromBad = [
        "2,abc,type error in an int,0x02",
        "3,30,type error in a blob,0xZZ",
        "4,40",
        "5,50,too many,0x05,extra",
        "8,80,xxxx",
      ]
        .filter((raw) => !bad.includes(raw));
      m.notes.push(`${describeRun(run).split("\n")[0]}; loaded ids ${loaded.map(([id]) => id).join(",")}`);
      if (missingFromLog.length) m.notes.push(`lines without a reason in .errors.log: ${missingFromLog.join(", ")}`);
      if (missingFromBad.length) m.notes.push(`rows missing from .bad: ${missingFromBad.map((r) => r.slice(0, 12)).join(" | ")}`);
      assertEquals(run.code, EXIT_BAD_ROWS, `exit code: ${describeRun(run)}`);
      assertEquals(loaded, [[1, 10, "good one", "1"], [7, 70, "good seven", "7"], [9, 90, "good nine", "9"]], "exactly the good rows");
      assertEquals(missingFromLog, [], `bad lines with no reason logged; log:\n${log.slice(0, 2000)}`);
      assertEquals(missingFromBad, [], "bad rows not copied to the .bad file");
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);

scenario(
  "single",
  "bad input files: a 1 GiB single line",
  `a CSV whose second row is one line of ${HUGE_LINE_BYTES} bytes: that row is recorded as bad with its reason, the rows around it load, exit 3, peak RSS < ${HUGE_LINE_RSS_LIMIT_MB} MiB`,
  async (m: Measured) => {
    const table = await freshBadInputTable("bad_huge_line");
    const dir = await tempDir("huge-line");
    const csv = `${dir}/huge.csv`;
    const file = await Deno.open(csv, { write: true, create: true, truncate: true });
    try {
      await writeAll(file, enc.encode("id,n,v,b\n1,10,before,0x01\n2,20,"));
      const block = new Uint8Array(16 * 2 ** 20).fill(0x61);
      for (let left = HUGE_LINE_BYTES; left > 0; left -= block.length) {
        await writeAll(file, block.subarray(0, Math.min(left, block.length)));
      }
      await writeAll(file, enc.encode(",0x02\n3,30,after,0x03\n"));
      file.close();
      const run = await runCli(["load", csv, "--table", table, ...cliHosts(TARGET), "--bad-dir", `${dir}/bad`, "--json", "--quiet"], {
        maxRssMb: 3 * HUGE_LINE_RSS_LIMIT_MB,
        timeoutMs: 300_000,
      });
      m.rowsSent = 2;
      m.peakRssMb = run.peakRssMb;
      const loaded = await rowsOf(table);
      m.rowsCounted = loaded.length;
      m.rowsLost = 2 - loaded.filter(([id]) => id === 1 || id === 3).length;
      const log = await readBadOutputs(`${dir}/bad`, ".errors.log");
      m.notes.push(`${describeRun(run).split("\n")[0]}; peak RSS ${run.peakRssMb} MiB; reason: ${log.split("\n")[0]?.slice(0, 200)}`);
      assert(!run.killedForMemory, `the CLI went over ${3 * HUGE_LINE_RSS_LIMIT_MB} MiB and was killed`);
      assertEquals(run.code, EXIT_BAD_ROWS, `exit code: ${describeRun(run)}`);
      assertEquals(loaded.map(([id, n, v]) => [id, n, v]), [[1, 10, "before"], [3, 30, "after"]], "the rows around the huge line");
      assert(/:3\b/.test(log), `no reason logged for line 3; log: ${log.slice(0, 500)}`);
      assert(run.peakRssMb < HUGE_LINE_RSS_LIMIT_MB, `peak RSS ${run.peakRssMb} MiB: the line was held in memory`);
    } finally {
      try {
        file.close();
      } catch {
        // Closed already.
      }
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);
