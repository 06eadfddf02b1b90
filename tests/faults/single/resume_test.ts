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

/** Modification times of the checkpoint files in `dir`. */
async function checkpointTimes(dir: string): Promise<number[]> {
  const times: number[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.includes("checkpoint")) times.push((await Deno.stat(`${dir}/${e.name}`)).mtime?.getTime() ?? 0);
    }
  } catch {
    // Not created yet.
  }
  return times;
}

scenario(
  "single",
  "loader killed with SIGKILL, then --resume",
  `load of ${ROWS} rows with --checkpoint-dir (checkpoint every 1 s), SIGKILL at a random point after a checkpoint recorded progress, then the same command with --resume: exit 0, count and content hash exact, fewer rows sent again than were sent before the kill`,
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
            // Killed once a checkpoint was rewritten after the first (so it records progress).
            let firstWrite: number | null = null;
            for (;;) {
              const sent = proxy.stats().keys?.sent ?? 0;
              const [written] = await checkpointTimes(`${dir}/checkpoint`);
              if (written !== undefined) firstWrite ??= written;
              if (sent >= killAtRows && firstWrite !== null && written > firstWrite) break;
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
