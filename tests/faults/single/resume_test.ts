/**
 * The loader killed with SIGKILL at a random point, then run again with --resume: the table
 * ends up with exactly the input's rows. The proxy counts rows sent more than once (those
 * in flight or past the last checkpoint when the loader died).
 */
import {
  assert,
  assertEquals,
  assertExactContent,
  cliHosts,
  describeRun,
  directClient,
  type Measured,
  proxiedLoadSetup,
  runCli,
  scenario,
  sleep,
} from "../helpers.ts";

const ROWS = 200_000;

/**
 * The rows the checkpoint in `dir` records as loaded (0 before it exists). A checkpoint is
 * rewritten every interval even when nothing was acknowledged yet (a slow start), so only its
 * content says whether a resume would skip anything.
 */
async function checkpointedRows(dir: string): Promise<number> {
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !e.name.endsWith(".checkpoint.json")) continue;
      const stored = JSON.parse(await Deno.readTextFile(`${dir}/${e.name}`));
      return (stored.files as Array<{ rowsLoaded: number }>).reduce((sum, f) => sum + f.rowsLoaded, 0);
    }
  } catch {
    // Not created yet, or being renamed into place: read it again on the next turn.
  }
  return 0;
}

scenario(
  "single",
  "loader killed with SIGKILL, then --resume",
  `load of ${ROWS} rows with --checkpoint-dir (checkpoint every 1 s), SIGKILL at a random point once the checkpoint records rows loaded, then the same command with --resume: exit 0, count and content hash exact, fewer rows sent again than were sent before the kill`,
  async (m: Measured) => {
    const { table, dir, csv, proxy } = await proxiedLoadSetup("resume_load", ROWS);
    const args = [
      "load",
      csv,
      "--table",
      table,
      ...cliHosts(proxy.address),
      "--bad-dir",
      `${dir}/bad`,
      "--checkpoint-dir",
      `${dir}/checkpoint`,
      "--checkpoint-interval",
      "1",
      "--json",
      "--quiet",
    ];
    try {
      const killAtRows = Math.floor(ROWS * (0.1 + 0.6 * Math.random()));
      let killedAt: number | null = null;
      const first = await runCli(args, {
        timeoutMs: 300_000,
        onSpawn: (child) => {
          (async () => {
            // Killed once a checkpoint records progress, so a resume has rows to skip.
            for (;;) {
              const sent = proxy.stats().keys?.sent ?? 0;
              if (sent >= killAtRows && await checkpointedRows(`${dir}/checkpoint`) > 0) break;
              if (sent >= ROWS) return;
              await sleep(2);
            }
            killedAt = proxy.stats().keys?.sent ?? 0;
            child.kill("SIGKILL");
          })();
        },
      });
      m.notes.push(`first run: ${describeRun(first).split("\n")[0]}, killed after ${killedAt ?? "—"} rows sent (target ${killAtRows})`);
      assert(killedAt !== null && first.signal === "SIGKILL", `the first run was not killed mid-load: ${describeRun(first)}`);
      const second = await runCli([...args, "--resume"], { timeoutMs: 300_000 });
      m.rowsSent = ROWS;
      m.peakRssMb = Math.max(first.peakRssMb, second.peakRssMb);
      const keys = proxy.stats().keys;
      m.duplicates = keys?.duplicates ?? null;
      m.notes.push(`resumed run: ${describeRun(second).split("\n")[0]}; ${keys?.sent} rows sent in all`);
      assertEquals(second.code, 0, `the resumed load: ${describeRun(second)}`);
      // Rows past the last checkpoint are sent again; all of them would mean it started over.
      assert(
        m.duplicates !== null && m.duplicates < (killedAt ?? 0),
        `the resumed run sent ${m.duplicates} of the ${killedAt} rows already sent: it started over instead of resuming`,
      );
      const verify = directClient();
      try {
        await assertExactContent(verify, table, ROWS, m);
      } finally {
        await verify.shutdown();
      }
    } finally {
      await proxy.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);
