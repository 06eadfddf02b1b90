// The CLI never destroys a user's file (issue #12, defect 6), run as bin/cqlwire against the
// real local Cassandra: an input that is one of the load's own outputs is refused, unload
// writes through a temporary file, a checkpoint that does not fit is an error, and job-config
// and --timestamp values mean what they say.

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { type CliResult, CQLWIRE, runCli } from "./run.ts";
import { CheckpointStore } from "../../cli/load/checkpoint.ts";

const KEYSPACE = "clisafety_files";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const TABLE = `${KEYSPACE}.users_${RUN}`;

function describe(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

async function cli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return await runCli(args, options);
}

async function ok(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const result = await cli(args, options);
  assertEquals(result.code, 0, describe(result));
  return result;
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

async function setup(): Promise<string> {
  await ok([
    "query",
    `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
  ]);
  await ok(["query", `CREATE TABLE IF NOT EXISTS ${TABLE} (id int PRIMARY KEY, v text)`]);
  return await Deno.makeTempDir({ prefix: "cqlwire-clisafety-" });
}

const ROWS = "id,v\n1,a\n2,b\nx,bad\n3,c\n";

Deno.test({
  name: "CLI file safety (real Cassandra)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const work = await setup();
    try {
      await t.step("a load whose input is its own .bad file is refused, and the file survives", async () => {
        await Deno.writeTextFile(`${work}/users.csv`, ROWS);
        const first = await cli(["load", "users.csv", "--table", TABLE, "--quiet"], { cwd: work });
        assertEquals(first.code, 3, describe(first));
        const bad = await Deno.readTextFile(`${work}/cqlwire-logs/users.bad`);
        assertEquals(bad, "id,v\nx,bad\n");
        for (const extra of [[], ["--resume"], ["--dry-run"]]) {
          const again = await cli(["load", "cqlwire-logs/users.bad", "--table", TABLE, "--quiet", ...extra], {
            cwd: work,
          });
          assertEquals(again.code, 2, describe(again));
          assertStringIncludes(
            again.stderr,
            "input cqlwire-logs/users.bad is this load's bad-rows file (./cqlwire-logs/users.bad)",
          );
          assertEquals(await Deno.readTextFile(`${work}/cqlwire-logs/users.bad`), bad, `after ${extra}`);
        }
        // The same file by another name: an absolute path, a symlink and a hard link.
        await Deno.mkdir(`${work}/elsewhere`);
        await Deno.symlink(`${work}/cqlwire-logs/users.bad`, `${work}/elsewhere/users.csv`);
        await Deno.link(`${work}/cqlwire-logs/users.bad`, `${work}/elsewhere/users.txt`);
        for (const input of [`${work}/cqlwire-logs/users.bad`, "elsewhere/users.csv", "elsewhere/users.txt"]) {
          const again = await cli(["load", input, "--table", TABLE, "--quiet"], { cwd: work });
          assertEquals(again.code, 2, describe(again));
          assertStringIncludes(again.stderr, `input ${input} is this load's bad-rows file`);
        }
        assertEquals(await Deno.readTextFile(`${work}/cqlwire-logs/users.bad`), bad);
      });

      await t.step("unload --out: refuses to replace, replaces only with --overwrite, leaves nothing on failure", async () => {
        const out = `${work}/dump.csv`;
        await Deno.writeTextFile(out, "precious\n");
        const refused = await cli(["unload", "--table", TABLE, "--out", out, "--quiet"]);
        assertEquals(refused.code, 2, describe(refused));
        assertStringIncludes(refused.stderr, `${out} exists; pass --overwrite to replace it`);
        assertEquals(await Deno.readTextFile(out), "precious\n");

        const failing = await cli(["unload", "--query", `SELECT * FROM ${KEYSPACE}.missing_${RUN}`, "--out", out, "--overwrite", "--quiet"]);
        assertEquals(failing.code, 1, describe(failing));
        assertEquals(await Deno.readTextFile(out), "precious\n", "a failed unload leaves the old file");
        const fresh = `${work}/fresh.csv`;
        const failingFresh = await cli(["unload", "--query", `SELECT * FROM ${KEYSPACE}.missing_${RUN}`, "--out", fresh, "--quiet"]);
        assertEquals(failingFresh.code, 1, describe(failingFresh));
        assertEquals((await listing(work)).filter((name) => name.includes("fresh") || name.includes(".tmp-")), []);

        await ok(["unload", "--table", TABLE, "--out", out, "--overwrite", "--quiet"]);
        const lines = (await Deno.readTextFile(out)).trim().split("\r\n");
        assertEquals([lines[0], lines.slice(1).sort()], ["id,v", ["1,a", "2,b", "3,c"]]);

        // A symlink at --out is replaced by the new file; its target is never written.
        await Deno.writeTextFile(`${work}/target.txt`, "keep me\n");
        await Deno.symlink(`${work}/target.txt`, `${work}/link.csv`);
        const linkRefused = await cli(["unload", "--table", TABLE, "--out", `${work}/link.csv`, "--quiet"]);
        assertEquals(linkRefused.code, 2, describe(linkRefused));
        await ok(["unload", "--table", TABLE, "--out", `${work}/link.csv`, "--overwrite", "--quiet"]);
        assertEquals(await Deno.readTextFile(`${work}/target.txt`), "keep me\n");
        assertEquals((await Deno.lstat(`${work}/link.csv`)).isSymlink, false);
        assertEquals((await Deno.readTextFile(`${work}/link.csv`)).startsWith("id,v\r\n"), true);
        assertEquals((await listing(work)).filter((name) => name.includes(".tmp-")), []);

        // A directory output: the same rules for each of its files.
        const dir = `${work}/parts/`;
        await ok(["unload", "--table", TABLE, "--out", dir, "--max-concurrency", "2", "--quiet"]);
        const parts = await listing(dir);
        const table = TABLE.split(".")[1];
        assertEquals(parts, [`${table}-001.csv`, `${table}-002.csv`]);
        const partsBefore = await Promise.all(parts.map((name) => Deno.readTextFile(`${dir}${name}`)));
        const again = await cli(["unload", "--table", TABLE, "--out", dir, "--max-concurrency", "2", "--quiet"]);
        assertEquals(again.code, 2, describe(again));
        assertStringIncludes(again.stderr, "exists; pass --overwrite to replace it");
        assertEquals(await listing(dir), parts);
        assertEquals(await Promise.all(parts.map((name) => Deno.readTextFile(`${dir}${name}`))), partsBefore);
        const empty = `${work}/empty/`;
        const missing = await cli(["unload", "--table", `${KEYSPACE}.missing_${RUN}`, "--out", empty, "--quiet"]);
        assertEquals([missing.code, missing.stderr], [1, `error: table ${KEYSPACE}.missing_${RUN} does not exist\n`]);
        assertEquals(await listing(empty).catch((error) => String(error.name)), "NotFound");
      });

      await t.step("unload interrupted by SIGINT: its temporary file goes, no output appears", async () => {
        const big = `${KEYSPACE}.big_${RUN}`;
        await ok(["query", `CREATE TABLE ${big} (id int PRIMARY KEY, v text)`]);
        const rows = Array.from({ length: 3000 }, (_, id) => `${id},v${id}`).join("\n");
        await Deno.writeTextFile(`${work}/big.csv`, `id,v\n${rows}\n`);
        await ok(["load", `${work}/big.csv`, "--table", big, "--quiet"], { cwd: work });
        const dir = `${work}/interrupted`;
        await Deno.mkdir(dir);
        // One row per page: the unload takes thousands of round trips, time enough to interrupt.
        const child = new Deno.Command(CQLWIRE, {
          args: ["unload", "--table", big, "--out", `${dir}/big.csv`, "--page-size", "1", "--max-concurrency", "1", "--quiet"],
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        while (!(await listing(dir)).some((name) => name.startsWith(".big.csv.tmp-"))) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        child.kill("SIGINT");
        const output = await child.output();
        const stderr = new TextDecoder().decode(output.stderr);
        assertEquals(output.code, 1, stderr);
        assertEquals(/^error: unload interrupted by SIGINT after [0-9]+ rows; no output file was written\n$/.test(stderr), true, stderr);
        assertEquals(await listing(dir), []);
      });

      await t.step("checkpoints: damaged, edited or of another file is an error naming the checkpoint", async () => {
        const dir = `${work}/ckpt`;
        await Deno.mkdir(dir);
        const input = `${dir}/people.csv`;
        await Deno.writeTextFile(input, ROWS);
        const args = ["load", input, "--table", TABLE, "--quiet", "--bad-dir", `${dir}/logs`];
        const first = await cli(args);
        assertEquals(first.code, 3, describe(first));
        const name = (await listing(`${dir}/logs`)).find((entry) => entry.endsWith(".checkpoint.json"))!;
        const path = `${dir}/logs/${name}`;
        const original = await Deno.readTextFile(path);
        const store = new CheckpointStore(`${dir}/logs`, name.replace(/\.checkpoint\.json$/, ""), false);
        const saved = (await store.read())!.checkpoint;
        assertEquals(saved.files[0].done, true);

        const resume = async (expected: string) => {
          const result = await cli([...args, "--resume"]);
          assertEquals(result.code, 1, describe(result));
          assertStringIncludes(result.stderr, expected);
          return result;
        };
        // Not JSON.
        await Deno.writeTextFile(path, original.slice(0, 40));
        await resume(`${path} is not a valid checkpoint: not JSON`);
        // A hand edit: the checksum no longer matches.
        await Deno.writeTextFile(path, original.replace('"offset": ', '"offset": 1'));
        await resume(`${path} is not a valid checkpoint: its checksum does not match`);
        // Valid JSON of the wrong shape.
        await Deno.writeTextFile(path, original.replace('"done": true', '"done": "yes"'));
        await resume(`${path} is not a valid checkpoint: files.0.done:`);
        // A consistent checkpoint whose watermark is inside a record.
        const fingerprints = saved.files.map((file) => (file as { fingerprint?: string | null }).fingerprint ?? null);
        store.setFingerprints(fingerprints);
        store.write({ ...saved, files: [{ ...saved.files[0], offset: 7, done: false }] });
        await resume(`cannot resume from ${path}: offset 7 of ${input} is not at the start of a record`);
        store.write({ ...saved, files: [{ ...saved.files[0], offset: 4096, done: false }] });
        await resume(`cannot resume from ${path}: offset 4096 of ${input} is past the end of its data`);

        // done: true, but the file is another one with the same size and mtime.
        await Deno.writeTextFile(path, original);
        const info = await Deno.stat(input);
        await Deno.writeTextFile(input, ROWS.replace("1,a", "9,z"));
        await Deno.utime(input, info.atime!, info.mtime!);
        await resume(`${input} is not the file the checkpoint was taken of (its content fingerprint differs)`);
        // The original content back: the finished job resumes to nothing left to do.
        await Deno.writeTextFile(input, ROWS);
        await Deno.utime(input, info.atime!, info.mtime!);
        const again = await cli([...args, "--resume", "--json"]);
        assertEquals(again.code, 0, describe(again));
        assertEquals(JSON.parse(again.stdout).rowsLoaded, 0);
      });

      await t.step("job config: load.set numbers are refused (String() would round 2^53 + 1)", async () => {
        const config = `${work}/job.json`;
        await Deno.writeTextFile(config, '{"load": {"set": {"v": 9007199254740993}}}');
        const result = await cli(["--config", config, "load", `${work}/users.csv`, "--table", TABLE, "--quiet"]);
        assertEquals(result.code, 2, describe(result));
        assertStringIncludes(result.stderr, "load.set.v: expected a string");
      });

      await t.step("--timestamp without a zone is UTC, whatever the local zone", async () => {
        const input = `${work}/ts.csv`;
        await Deno.writeTextFile(input, "id,v\n50,t\n");
        await ok(["load", input, "--table", TABLE, "--quiet", "--timestamp", "2024-01-01T00:00:00"], {
          cwd: work,
          env: { TZ: "Asia/Kolkata" },
        });
        const result = await ok(["query", "--format", "json", `SELECT writetime(v) AS w FROM ${TABLE} WHERE id = 50`]);
        assertEquals(JSON.parse(result.stdout), [{ w: 1704067200000000 }]);
      });
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});
