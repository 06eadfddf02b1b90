// The load loop against a scripted target: retries and their limits, batches, the
// checkpoint watermark, the counter journal and resuming from both.

import { parseCqlType } from "../../cli/cql_type.ts";
import { BadRowLog } from "../../cli/load/bad_rows.ts";
import { CheckpointStore, type JobIdentity } from "../../cli/load/checkpoint.ts";
import { CsvFileSource } from "../../cli/load/csv_source.ts";
import { type LoadInput, type LoadSettings, type LoadTarget, type Params, runLoad } from "../../cli/load/loader.ts";
import { CsvRowConverter } from "../../cli/load/row_converter.ts";
import { buildInsert, orderColumns, resolveLayout, type TableColumn, type TableSchema } from "../../cli/load/table.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";

function column(name: string, kind: TableColumn["kind"], position: number, typeText: string): TableColumn {
  return { name, kind, position, type: parseCqlType(typeText), typeText };
}

const SCHEMA: TableSchema = {
  keyspace: "ks",
  table: "t",
  columns: orderColumns([
    column("k", "partition_key", 0, "int"),
    column("c", "clustering", 0, "int"),
    column(
      "v",
      "regular",
      -1,
      "text",
    ),
  ]),
};

const JOB: JobIdentity = { table: "ks.t", query: null, inputs: ["in.csv"], split: null };

function serverError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code, name: "ResponseError" });
}

class TimeoutError extends Error {
  override name = "OperationTimedOutError";
}

interface Harness {
  dir: string;
  path: string;
  /** Rows written, by key, with how often each was written. */
  writes: Map<number, number>;
  batches: number[];
}

async function withInput<T>(rows: number, fn: (h: Harness) => Promise<T>, extra = ""): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-loader-" });
  try {
    const lines = ["k,c,v"];
    for (let k = 0; k < rows; k++) lines.push(`${k},${k % 3},value ${k}`);
    const path = `${dir}/in.csv`;
    await Deno.writeTextFile(path, lines.join("\n") + "\n" + extra);
    return await fn({ dir, path, writes: new Map(), batches: [] });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function plan(header: string[] | null) {
  const layout = resolveLayout(SCHEMA, header, null);
  return {
    statement: buildInsert(SCHEMA, layout.bindings),
    converter: new CsvRowConverter(layout, [""]),
    partitionKeyPositions: [0],
    tokens: null,
  };
}

function recordingTarget(h: Harness, fail: (key: number, attempt: number) => Error | null): LoadTarget {
  const attempts = new Map<number, number>();
  const write = async (params: Params) => {
    const key = (params as unknown[])[0] as number;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    await new Promise((resolve) => setTimeout(resolve, key % 2));
    const error = fail(key, attempt);
    if (error) throw error;
    h.writes.set(key, (h.writes.get(key) ?? 0) + 1);
  };
  return {
    execute: (_statement, params) => write(params),
    batch: async (items) => {
      h.batches.push(items.length);
      for (const item of items) {
        if (fail((item.params as unknown[])[0] as number, 0)) throw serverError(0x2200, "a bad row in the batch");
      }
      for (const item of items) await write(item.params);
    },
  };
}

function input(h: Harness, stem = "in"): LoadInput {
  return {
    source: new CsvFileSource(h.path, { delimiter: ",", quote: '"' }, true),
    badLog: new BadRowLog(h.dir, stem),
    header: "record",
  };
}

const BASE: LoadSettings = { maxConcurrency: 8, initialConcurrency: 8, retryBaseMs: 1 };

Deno.test("overloads and timeouts are retried with backoff until they succeed", async () => {
  await withInput(40, async (h) => {
    const target = recordingTarget(h, (key, attempt) => {
      if (key % 5 === 0 && attempt <= 2) return serverError(0x1001, "Overloaded");
      if (key % 7 === 0 && attempt === 1) return new TimeoutError("no answer in time");
      return null;
    });
    const summary = await runLoad([input(h)], plan, target, { ...BASE, maxRetries: 3 });
    assertEquals([summary.rowsLoaded, summary.badRows], [40, 0]);
    // Keys 0 and 35 fail twice with Overloaded; the other multiples of 7 time out once.
    assertEquals(summary.retries, 8 * 2 + 4);
    assertEquals(h.writes.size, 40);
  });
});

Deno.test("retries stop at --max-retries; the row goes to the bad file with the reason", async () => {
  await withInput(10, async (h) => {
    const target = recordingTarget(h, (key) => (key === 4 ? serverError(0x1100, "Write timeout") : null));
    const log = input(h);
    const summary = await runLoad([log], plan, target, { ...BASE, maxRetries: 2 });
    assertEquals([summary.rowsLoaded, summary.badRows, summary.retries], [9, 1, 2]);
    const reasons = await Deno.readTextFile(log.badLog.logPath);
    assertStringIncludes(reasons, "in.csv:6: not written (after 2 retries): Write timeout (0x1100)");
    assertEquals(await Deno.readTextFile(log.badLog.badPath), "k,c,v\n4,1,value 4\n");
  });
});

Deno.test("a server error (0x0000) is retried and a write failure (0x1500) is not, as on the core path", async () => {
  await withInput(10, async (h) => {
    const target = recordingTarget(h, (key, attempt) => {
      if (key === 2 && attempt === 1) return serverError(0x0000, "Server error");
      if (key === 5) return serverError(0x1500, "Write failure");
      return null;
    });
    const summary = await runLoad([input(h)], plan, target, { ...BASE, maxRetries: 3 });
    assertEquals([summary.rowsLoaded, summary.badRows, summary.retries], [9, 1, 1]);
  });
});

Deno.test("a non-idempotent write is not retried after a timeout, only after a refusal", async () => {
  await withInput(6, async (h) => {
    const target = recordingTarget(h, (key, attempt) => {
      if (key === 1) return new TimeoutError("no answer");
      if (key === 2 && attempt === 1) return serverError(0x1000, "Unavailable");
      return null;
    });
    const log = input(h);
    const summary = await runLoad([log], plan, target, { ...BASE, idempotent: false, maxRetries: 3 });
    assertEquals([summary.rowsLoaded, summary.badRows, summary.retries], [5, 1, 1]);
    assertStringIncludes(await Deno.readTextFile(log.badLog.logPath), "may have been applied");
  });
});

Deno.test("batches group rows of a partition; a rejected batch is retried row by row", async () => {
  await withInput(0, async (h) => {
    const lines = ["k,c,v"];
    for (let i = 0; i < 60; i++) lines.push(`${i % 3},${i},v${i}`);
    lines.push("1,999,poison");
    await Deno.writeTextFile(h.path, lines.join("\n") + "\n");
    const rows: unknown[][] = [];
    const target: LoadTarget = {
      execute: (_statement, params) => {
        const values = params as unknown[];
        if (values[1] === 999) return Promise.reject(serverError(0x2200, "poison"));
        rows.push(values);
        return Promise.resolve();
      },
      batch: (items) => {
        h.batches.push(items.length);
        const keys = new Set(items.map((item) => (item.params as unknown[])[0]));
        assertEquals(keys.size, 1, "a batch holds one partition");
        if (items.some((item) => (item.params as unknown[])[1] === 999)) {
          return Promise.reject(serverError(0x2200, "Batch too large or poisoned"));
        }
        for (const item of items) rows.push(item.params as unknown[]);
        return Promise.resolve();
      },
    };
    const log = input(h);
    const summary = await runLoad([log], plan, target, { ...BASE, batch: { size: 10, by: "partition" } });
    assertEquals([summary.rowsLoaded, summary.badRows], [60, 1]);
    assertEquals(rows.length, 60);
    assert(h.batches.filter((size) => size === 10).length >= 5, `batches ${h.batches}`);
    assertStringIncludes(
      await Deno.readTextFile(log.badLog.logPath),
      "rejected by the server: Invalid (0x2200): poison",
    );
  });
});

Deno.test("the checkpoint's watermark stops at the first unsettled row; resume starts there", async () => {
  await withInput(30, async (h) => {
    const store = new CheckpointStore(h.dir, "job", false);
    const stop = { reason: null as string | null };
    const target = recordingTarget(h, () => null);
    const slow: LoadTarget = {
      execute: async (statement, params, options) => {
        const key = (params as unknown[])[0] as number;
        if (key === 12) {
          stop.reason = "interrupted by SIGTERM";
          throw new TimeoutError("the node went away");
        }
        await target.execute(statement, params, options);
      },
    };
    const settings: LoadSettings = {
      ...BASE,
      maxConcurrency: 1,
      initialConcurrency: 1,
      stop,
      checkpoint: {
        store,
        job: JOB,
        everyMs: 60_000,
        everyRows: 1_000_000,
        files: [{ path: h.path, size: null, mtimeMs: null }],
      },
    };
    const first = await runLoad([input(h)], plan, slow, settings);
    assertEquals(first.abortedBecause, "interrupted by SIGTERM");
    const saved = (await store.read())!;
    const file = saved.checkpoint.files[0];
    assertEquals(saved.checkpoint.complete, false);
    assertEquals([file.rowsLoaded, file.line, file.done], [12, 14, false]);
    const text = await Deno.readTextFile(h.path);
    assertEquals(text.slice(file.offset).startsWith("12,0,value 12\n"), true, "the watermark is row 12's start");

    const resumed: LoadInput = { ...input(h), start: { offset: file.offset, line: file.line }, resume: file };
    const second = await runLoad([resumed], plan, target, { ...settings, stop: { reason: null } });
    assertEquals([second.rowsLoaded, second.previouslyLoaded], [18, 12]);
    assertEquals(h.writes.size, 30);
    const done = (await store.read())!.checkpoint;
    assertEquals([done.complete, done.files[0].done, done.files[0].rowsLoaded], [true, true, 30]);
  });
});

Deno.test("bad rows reach the bad file in input order as the watermark passes them", async () => {
  await withInput(20, async (h) => {
    const target = recordingTarget(h, () => null);
    await Deno.writeTextFile(h.path, "k,c,v\n1,1,a\nx,1,b\n3,1,c\ny,2,d\n", { append: false });
    const log = input(h);
    const store = new CheckpointStore(h.dir, "job", false);
    const summary = await runLoad([log], plan, target, {
      ...BASE,
      checkpoint: {
        store,
        job: JOB,
        everyMs: 60_000,
        everyRows: 1_000_000,
        files: [{ path: h.path, size: null, mtimeMs: null }],
      },
    });
    assertEquals([summary.rowsLoaded, summary.badRows], [2, 2]);
    const bad = await Deno.readTextFile(log.badLog.badPath);
    assertEquals(bad, "k,c,v\nx,1,b\ny,2,d\n");
    const file = (await store.read())!.checkpoint.files[0];
    assertEquals(file.badFiles.bad, new TextEncoder().encode(bad).length);
    assertEquals(file.badRows, 2);
  });
});

Deno.test("a journaled resume skips acknowledged rows and sets aside rows only sent", async () => {
  await withInput(10, async (h) => {
    const target = recordingTarget(h, () => null);
    const text = await Deno.readTextFile(h.path);
    const offsetOf = (k: number) => text.indexOf(`\n${k},`) + 1;
    // As if an earlier run had the watermark at row 2, row 3 acknowledged, row 4 sent.
    const log = input(h);
    const resumed: LoadInput = {
      ...log,
      start: { offset: offsetOf(2), line: 4 },
      resumeAcked: new Set([offsetOf(3)]),
      resumeSent: new Set([offsetOf(4)]),
    };
    const store = new CheckpointStore(h.dir, "job", true);
    await store.openJournal(true);
    const summary = await runLoad([resumed], plan, target, {
      ...BASE,
      idempotent: false,
      checkpoint: {
        store,
        job: JOB,
        everyMs: 60_000,
        everyRows: 1_000_000,
        files: [{ path: h.path, size: null, mtimeMs: null }],
      },
    });
    assertEquals([summary.rowsLoaded, summary.previouslyLoaded, summary.uncertainRows], [6, 1, 1]);
    assertEquals([...h.writes.keys()].sort((a, b) => a - b), [2, 5, 6, 7, 8, 9]);
    assertEquals(await Deno.readTextFile(log.badLog.uncertainPath), "k,c,v\n4,1,value 4\n");
    assertStringIncludes(await Deno.readTextFile(log.badLog.logPath), "in.csv:6: sent before the interruption");
  });
});

Deno.test("the journal records sends before they leave and acknowledgements after", async () => {
  await withInput(5, async (h) => {
    const store = new CheckpointStore(h.dir, "job", true);
    await store.openJournal(true);
    let journalAtFirstSend = "";
    const target: LoadTarget = {
      execute: async () => {
        journalAtFirstSend ||= await Deno.readTextFile(store.journalPath);
        await new Promise((resolve) => setTimeout(resolve, 1));
      },
    };
    const stop = { reason: null as string | null };
    await runLoad([input(h)], plan, target, {
      ...BASE,
      maxConcurrency: 1,
      initialConcurrency: 1,
      idempotent: false,
      stop,
      checkpoint: {
        store,
        job: JOB,
        everyMs: 60_000,
        everyRows: 1_000_000,
        files: [{ path: h.path, size: null, mtimeMs: null }],
      },
    });
    assertEquals(journalAtFirstSend, "S 0 6\n");
    // The final checkpoint folded the journal in and emptied it.
    assertEquals(await Deno.readTextFile(store.journalPath), "");
    const saved = (await store.read())!.checkpoint;
    assertEquals([saved.complete, saved.files[0].acked, saved.files[0].sent], [true, [], []]);
  });
});

Deno.test("--dry-run converts every row and writes nothing", async () => {
  await withInput(25, async (h) => {
    const target: LoadTarget = { execute: () => Promise.reject(new Error("must not write")) };
    const summary = await runLoad([input(h)], plan, target, { ...BASE, dryRun: true });
    assertEquals([summary.rowsLoaded, summary.badRows, summary.checkpointFile], [25, 1, null]);
  }, "x,1,bad\n");
});
