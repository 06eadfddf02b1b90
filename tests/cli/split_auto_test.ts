// `--split auto`: the share read from Kubernetes, Slurm and AWS Batch variables, the errors
// when they are missing or do not fit, and one load through bin/cqlwire against the live
// Cassandra in which each of two "pods" loads only its own file.

import { UsageError } from "../../cli/errors.ts";
import { splitFromEnvironment } from "../../cli/load/split_auto.ts";
import { assertEquals, assertStringIncludes, assertThrows } from "./assert.ts";
import { type CliResult, runCli } from "./run.ts";

/** The UsageError message of `--split auto` in `env`. */
function refusal(env: Record<string, string>): string {
  return assertThrows(() => splitFromEnvironment(env), UsageError).message;
}

Deno.test("Kubernetes Indexed Job: JOB_COMPLETION_INDEX with CQLWIRE_SPLIT_COUNT", () => {
  assertEquals(
    splitFromEnvironment({
      JOB_COMPLETION_INDEX: "0",
      CQLWIRE_SPLIT_COUNT: "4",
    }),
    {
      index: 1,
      count: 4,
      source: "kubernetes",
    },
  );
  assertEquals(
    splitFromEnvironment({
      JOB_COMPLETION_INDEX: "3",
      CQLWIRE_SPLIT_COUNT: "4",
    }).index,
    4,
  );
  assertEquals(
    refusal({ JOB_COMPLETION_INDEX: "2" }),
    "--split auto: JOB_COMPLETION_INDEX (Kubernetes) gives this task's index but not the number of tasks; set CQLWIRE_SPLIT_COUNT",
  );
  assertEquals(
    refusal({ JOB_COMPLETION_INDEX: "4", CQLWIRE_SPLIT_COUNT: "4" }),
    "--split auto: task index 4 (0-based) is not below the task count 4 (JOB_COMPLETION_INDEX (Kubernetes))",
  );
  assertEquals(
    refusal({ JOB_COMPLETION_INDEX: "one", CQLWIRE_SPLIT_COUNT: "4" }),
    "--split auto: JOB_COMPLETION_INDEX=one is not a whole number",
  );
});

Deno.test("Slurm arrays: COUNT, or MIN/MAX/STEP; irregular arrays are refused", () => {
  assertEquals(
    splitFromEnvironment({
      SLURM_ARRAY_TASK_ID: "7",
      SLURM_ARRAY_TASK_MIN: "5",
      SLURM_ARRAY_TASK_COUNT: "3",
    }),
    { index: 3, count: 3, source: "slurm" },
  );
  assertEquals(
    splitFromEnvironment({
      SLURM_ARRAY_TASK_ID: "10",
      SLURM_ARRAY_TASK_MIN: "0",
      SLURM_ARRAY_TASK_MAX: "20",
      SLURM_ARRAY_TASK_STEP: "5",
    }),
    { index: 3, count: 5, source: "slurm" },
  );
  assertEquals(
    refusal({
      SLURM_ARRAY_TASK_ID: "4",
      SLURM_ARRAY_TASK_MIN: "1",
      SLURM_ARRAY_TASK_STEP: "2",
    }),
    "--split auto: SLURM_ARRAY_TASK_ID 4 is not on the array's grid (min 1, step 2); an irregular array (--array=1,4,9) cannot be split evenly: use --split i/n",
  );
  assertEquals(
    refusal({
      SLURM_ARRAY_TASK_ID: "9",
      SLURM_ARRAY_TASK_MIN: "1",
      SLURM_ARRAY_TASK_COUNT: "3",
    }),
    "--split auto: task index 8 (0-based) is not below the task count 3 (SLURM_ARRAY_TASK_ID)",
  );
});

Deno.test("AWS Batch arrays, precedence, and no batch system at all", () => {
  assertEquals(
    splitFromEnvironment({
      AWS_BATCH_JOB_ARRAY_INDEX: "9",
      CQLWIRE_SPLIT_COUNT: "10",
    }),
    {
      index: 10,
      count: 10,
      source: "aws-batch",
    },
  );
  // Kubernetes first, then Slurm, then AWS Batch; empty variables count as absent.
  assertEquals(
    splitFromEnvironment({
      JOB_COMPLETION_INDEX: "",
      SLURM_ARRAY_TASK_ID: "1",
      SLURM_ARRAY_TASK_COUNT: "2",
      AWS_BATCH_JOB_ARRAY_INDEX: "0",
    }).source,
    "slurm",
  );
  assertEquals(
    refusal({ CQLWIRE_SPLIT_COUNT: "4" }),
    "--split auto: no batch system found: expected JOB_COMPLETION_INDEX (Kubernetes Indexed Job), SLURM_ARRAY_TASK_ID (Slurm array) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch array); or give --split i/n",
  );
});

Deno.test("the example Kubernetes Job runs --split auto with CQLWIRE_SPLIT_COUNT equal to its completions", async () => {
  const manifest = await Deno.readTextFile(
    new URL("../../examples/kubernetes/load-job.yaml", import.meta.url),
  );
  const completions = /^  completions: ([0-9]+)$/m.exec(manifest)?.[1];
  const count = /- name: CQLWIRE_SPLIT_COUNT\n\s+value: "([0-9]+)"/.exec(
    manifest,
  )?.[1];
  assertEquals([completions, count], ["4", "4"]);
  assertStringIncludes(manifest, "completionMode: Indexed");
  assertStringIncludes(manifest, "- --split\n            - auto\n");
});

function explain(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

Deno.test({
  name: "two pods of an Indexed Job each load their own file (live Cassandra)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "cqlwire-split-auto-" });
    const table = `convert_cli.split_${Date.now().toString(36)}`;
    const setup = await runCli(["query", "-"], {
      stdin: `CREATE KEYSPACE IF NOT EXISTS convert_cli
          WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
        CREATE TABLE ${table} (id int PRIMARY KEY, pod text);`,
    });
    assertEquals(setup.code, 0, explain(setup));
    try {
      await Deno.writeTextFile(`${work}/a.csv`, "id,pod\n1,a\n2,a\n");
      await Deno.writeTextFile(`${work}/b.csv`, "id,pod\n3,b\n");
      const args = [
        "load",
        "--table",
        table,
        "--split",
        "auto",
        "--bad-dir",
        `${work}/bad`,
        "--json",
        `${work}/*.csv`,
      ];
      const second = await runCli(args, {
        env: { JOB_COMPLETION_INDEX: "1", CQLWIRE_SPLIT_COUNT: "2" },
      });
      assertEquals(second.code, 0, explain(second));
      assertEquals(JSON.parse(second.stdout).rowsLoaded, 1);
      const rows = await runCli([
        "query",
        "--format",
        "csv",
        `SELECT id, pod FROM ${table}`,
      ]);
      assertEquals(rows.stdout, "id,pod\r\n3,b\r\n");
      const first = await runCli(args, {
        env: { JOB_COMPLETION_INDEX: "0", CQLWIRE_SPLIT_COUNT: "2" },
      });
      assertEquals(JSON.parse(first.stdout).rowsLoaded, 2, explain(first));
      const none = await runCli(args);
      assertEquals(none.code, 2, explain(none));
      assertStringIncludes(none.stderr, "--split auto: no batch system found");
    } finally {
      await runCli(["query", `DROP TABLE IF EXISTS ${table}`]);
      await Deno.remove(work, { recursive: true });
    }
  },
});
