// `--split auto`: this process's share i/n of the inputs, read from the batch system that
// started it, so that one manifest starts N identical loaders.
//
// | system | index (0-based) | count |
// |---|---|---|
// | Kubernetes Indexed Job | JOB_COMPLETION_INDEX | CQLWIRE_SPLIT_COUNT (set it to spec.completions) |
// | Slurm job array | SLURM_ARRAY_TASK_ID − MIN, over STEP | SLURM_ARRAY_TASK_COUNT, else (MAX − MIN) / STEP + 1 |
// | AWS Batch array job | AWS_BATCH_JOB_ARRAY_INDEX | CQLWIRE_SPLIT_COUNT (set it to the array size) |
//
// Kubernetes and AWS Batch do not tell a task how many siblings it has, so the manifest
// passes the count in CQLWIRE_SPLIT_COUNT; when set it also overrides Slurm's count.

import { UsageError } from "../errors.ts";

export interface AutoSplit {
  /** 1-based, as in `--split i/n`. */
  index: number;
  count: number;
  /** Which system it came from, for the summary. */
  source: "kubernetes" | "slurm" | "aws-batch";
}

type Env = Record<string, string | undefined>;

function whole(env: Env, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === "") return undefined;
  if (!/^[0-9]+$/.test(text.trim())) {
    throw new UsageError(`--split auto: ${name}=${text} is not a whole number`);
  }
  return Number(text.trim());
}

function share(
  index: number,
  count: number | undefined,
  source: AutoSplit["source"],
  how: string,
): AutoSplit {
  if (count === undefined) {
    throw new UsageError(
      `--split auto: ${how} gives this task's index but not the number of tasks; set CQLWIRE_SPLIT_COUNT`,
    );
  }
  if (count < 1 || index >= count) {
    throw new UsageError(
      `--split auto: task index ${index} (0-based) is not below the task count ${count} (${how})`,
    );
  }
  return { index: index + 1, count, source };
}

function slurm(env: Env, id: number): AutoSplit {
  const min = whole(env, "SLURM_ARRAY_TASK_MIN") ?? 0;
  const step = whole(env, "SLURM_ARRAY_TASK_STEP") ?? 1;
  const max = whole(env, "SLURM_ARRAY_TASK_MAX");
  if (step < 1 || id < min || (id - min) % step !== 0) {
    throw new UsageError(
      `--split auto: SLURM_ARRAY_TASK_ID ${id} is not on the array's grid (min ${min}, step ${step}); ` +
        "an irregular array (--array=1,4,9) cannot be split evenly: use --split i/n",
    );
  }
  const count = whole(env, "CQLWIRE_SPLIT_COUNT") ??
    whole(env, "SLURM_ARRAY_TASK_COUNT") ??
    (max === undefined ? undefined : Math.floor((max - min) / step) + 1);
  return share((id - min) / step, count, "slurm", "SLURM_ARRAY_TASK_ID");
}

/** The share of this process, from the first batch system whose variables are set. */
export function splitFromEnvironment(env: Env): AutoSplit {
  const kubernetes = whole(env, "JOB_COMPLETION_INDEX");
  if (kubernetes !== undefined) {
    return share(
      kubernetes,
      whole(env, "CQLWIRE_SPLIT_COUNT"),
      "kubernetes",
      "JOB_COMPLETION_INDEX (Kubernetes)",
    );
  }
  const slurmId = whole(env, "SLURM_ARRAY_TASK_ID");
  if (slurmId !== undefined) return slurm(env, slurmId);
  const batch = whole(env, "AWS_BATCH_JOB_ARRAY_INDEX");
  if (batch !== undefined) {
    return share(
      batch,
      whole(env, "CQLWIRE_SPLIT_COUNT"),
      "aws-batch",
      "AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch)",
    );
  }
  throw new UsageError(
    "--split auto: no batch system found: expected JOB_COMPLETION_INDEX (Kubernetes Indexed Job), " +
      "SLURM_ARRAY_TASK_ID (Slurm array) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch array); or give --split i/n",
  );
}
