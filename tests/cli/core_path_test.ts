// The core path's load loop (core_loader.ts) against a stand-in for the core's bulk loader
// with the same contract, and its helpers: the input it pushes (header first when resuming),
// positions mapped back to the file, rejections in the log's words, and --rate pacing.

import type { BadRowRecord, BulkCounters, BulkLoadOptions, BulkState } from "../../driver/deno.ts";
import { parseCqlType } from "../../driver/mod.ts";
import { BadRowLog } from "../../cli/load/bad_rows.ts";
import { type Checkpoint, CheckpointStore, type JobIdentity } from "../../cli/load/checkpoint.ts";
import { openCoreInput, PositionMap } from "../../cli/load/core_input.ts";
import {
  type BulkLoadFunction,
  type CoreLoadInput,
  type CoreLoadSettings,
  type CorePlan,
  describeRejection,
  LinePacer,
  runCoreLoad,
  uncertainReason,
} from "../../cli/load/core_loader.ts";
import { expandInputs } from "../../cli/load/input.ts";
import { buildInsert, orderColumns, resolveLayout, type TableColumn, type TableSchema } from "../../cli/load/table.ts";
import { assert, assertEquals } from "./assert.ts";

function column(name: string, kind: TableColumn["kind"], position: number, typeText: string): TableColumn {
  return { name, kind, position, type: parseCqlType(typeText), typeText };
}

const SCHEMA: TableSchema = {
  keyspace: "ks",
  table: "t",
  columns: orderColumns([column("k", "partition_key", 0, "bigint"), column("v", "regular", -1, "time")]),
};

const JOB: JobIdentity = { table: "ks.t", query: null, inputs: ["in.csv"], split: null };

function plan(header: string[] | null): CorePlan {
  const layout = resolveLayout(SCHEMA, header, null);
  return {
    statement: buildInsert(SCHEMA, layout.bindings),
    mapping: layout.bindings.map((binding) => [binding.fieldIndex, binding.column.name]),
    constants: {},
    types: Object.fromEntries(layout.bindings.map((binding) => [binding.column.name, binding.column.typeText])),
  };
}

/** Times the converter reads, which the stand-in's server refuses. */
const REJECTED_TIME = "11:11:11";
const FORBIDDEN_TIME = "12:12:12";

interface CoreLog {
  pushed: Uint8Array[];
  options?: BulkLoadOptions;
}

/**
 * Plays the core's part: asks for input, reads lines (CSV without quotes; the first is the
 * header), reports a bad row as soon as it sees it, ahead of the watermark, and acknowledges
 * good rows one turn later. `v` decides: "bad" and "00:00" are bad rows, REJECTED_TIME and
 * FORBIDDEN_TIME are refused by the server.
 */
function fakeCore(log: CoreLog): BulkLoadFunction {
  return async (input: AsyncIterable<Uint8Array>, options: BulkLoadOptions): Promise<BulkState> => {
    log.options = options;
    const iterator = input[Symbol.asyncIterator]();
    const decoder = new TextDecoder();
    let buffer = new Uint8Array(0);
    let bufferOffset = 0;
    let line = 1;
    let headerPending = options.header !== false;
    let finished = false;
    const state: BulkCounters = {
      rowsOk: 0,
      rowsBad: 0,
      rowsRejected: 0,
      retries: 0,
      inFlight: 0,
      window: 8,
      waitingRetry: 0,
      watermark: 0,
      watermarkLine: 1,
      watermarkRowsOk: 0,
      watermarkRowsBad: 0,
      bytesPushed: 0,
      rowsPrevious: 0,
      rowsUncertain: 0,
      heldBytes: 0,
      watermarkTimestamp: null,
      lastTimestamp: null,
    };
    const order: Array<{ end: number; nextLine: number; settled: boolean }> = [];
    let inFlight: Array<{ entry: (typeof order)[number]; row: BadRowRecord; value: string; turns: number }> = [];
    const bad: BadRowRecord[] = [];
    const readLines = (atEnd: boolean) => {
      for (;;) {
        let newline = buffer.indexOf(0x0a);
        if (newline < 0) {
          if (!atEnd || buffer.length === 0) return;
          newline = buffer.length;
        }
        const raw = buffer.slice(0, newline);
        const offset = bufferOffset;
        const rowLine = line;
        const consumed = Math.min(newline + 1, buffer.length);
        buffer = buffer.subarray(consumed);
        bufferOffset += consumed;
        line++;
        if (raw.length === 0) continue;
        if (headerPending) {
          headerPending = false;
          continue;
        }
        if (options.stopAtOffset !== undefined && offset >= options.stopAtOffset) {
          finished = true;
          return;
        }
        const entry = { end: bufferOffset, nextLine: line, settled: false };
        order.push(entry);
        const value = decoder.decode(raw).split(",")[1];
        const row: BadRowRecord = {
          kind: "value",
          raw,
          line: rowLine,
          offset,
          column: null,
          field: null,
          byte: null,
          serverCode: null,
          attempts: 0,
          reason: "",
          value: null,
        };
        if (value === "bad" || value === "00:00") {
          bad.push({ ...row, column: "v", field: 1, value, reason: `column v: not a time of day` });
          entry.settled = true;
          state.rowsBad++;
        } else {
          // A refused row takes longer (as retries would), so later rows settle before it.
          inFlight.push({ entry, row, value, turns: value === REJECTED_TIME ? 3 : 1 });
        }
      }
    };
    const advance = () => {
      while (order.length > 0 && order[0].settled) {
        const entry = order.shift()!;
        state.watermark = entry.end;
        state.watermarkLine = entry.nextLine;
      }
    };
    try {
      for (;;) {
        for (const flight of inFlight) {
          const { entry, row, value } = flight;
          if (--flight.turns > 0) continue;
          entry.settled = true;
          if (value === REJECTED_TIME) {
            state.rowsRejected++;
            bad.push({ ...row, kind: "rejected", serverCode: 0x2200, attempts: 1, reason: "no such thing" });
          } else if (value === FORBIDDEN_TIME) {
            state.rowsRejected++;
            bad.push({ ...row, kind: "rejected", serverCode: 0x2100, attempts: 1, reason: "not you" });
          } else {
            state.rowsOk++;
          }
        }
        inFlight = inFlight.filter((flight) => flight.turns > 0);
        advance();
        for (const row of bad.splice(0)) await options.onBadRow?.(row);
        const done = finished && inFlight.length === 0;
        const snapshot: BulkState = { counters: { ...state }, status: { wantsInput: !finished, done, error: null } };
        options.onProgress?.(snapshot);
        if (done) return snapshot;
        const next = await iterator.next();
        if (next.done) {
          finished = true;
          readLines(true);
        } else {
          log.pushed.push(next.value.slice());
          const joined = new Uint8Array(buffer.length + next.value.length);
          joined.set(buffer);
          joined.set(next.value, buffer.length);
          buffer = joined;
          state.bytesPushed += next.value.length;
          readLines(false);
        }
        state.inFlight = inFlight.length;
        advance();
      }
    } finally {
      if (!finished) await iterator.return?.();
    }
  };
}

function valueOf(k: number): string {
  if (k === 777) return REJECTED_TIME;
  if (k % 100 === 7) return "bad";
  if (k % 100 === 57) return "00:00";
  return "10:00:00";
}

interface Scene {
  dir: string;
  path: string;
  text: string;
  lines: string[];
}

async function withScene<T>(rows: number, fn: (scene: Scene) => Promise<T>, gzip = false): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-core-path-" });
  try {
    const lines = ["k,v"];
    for (let k = 0; k < rows; k++) lines.push(`${k},${valueOf(k)}`);
    const text = lines.join("\n") + "\n";
    const path = `${dir}/in.csv${gzip ? ".gz" : ""}`;
    if (gzip) await Deno.writeFile(path, new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")));
    else await Deno.writeTextFile(path, text);
    return await fn({ dir, path, text, lines });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function settingsFor(
  store: CheckpointStore | null,
  path: string,
  extra: Partial<CoreLoadSettings> = {},
): CoreLoadSettings {
  return {
    csv: { delimiter: ",", quote: '"' },
    hasHeader: true,
    nullValues: [""],
    maxConcurrency: 8,
    checkpoint: store === null ? undefined : {
      store,
      job: JOB,
      everyMs: 0,
      everyRows: 1_000_000,
      files: [{ path, size: null, mtimeMs: null }],
    },
    ...extra,
  };
}

/** Every checkpoint written, with the bad file's text at that moment. */
function recordCheckpoints(store: CheckpointStore, badPath: string): Array<{ checkpoint: Checkpoint; bad: string }> {
  const seen: Array<{ checkpoint: Checkpoint; bad: string }> = [];
  const write = store.write.bind(store);
  store.write = (checkpoint: Checkpoint) => {
    let bad = "";
    try {
      bad = Deno.readTextFileSync(badPath);
    } catch {
      // not created yet
    }
    seen.push({ checkpoint: structuredClone(checkpoint), bad });
    write(checkpoint);
  };
  return seen;
}

Deno.test("core path: bad rows wait for the watermark, checkpoints are exact", async () => {
  await withScene(12_000, async ({ dir, path, text, lines }) => {
    const store = new CheckpointStore(dir, "job", false);
    const badLog = new BadRowLog(dir, "in");
    const seen = recordCheckpoints(store, badLog.badPath);
    const log: CoreLog = { pushed: [] };
    const [file] = await expandInputs([path]);
    const summary = await runCoreLoad(
      [{ input: file, format: "csv", badLog }],
      plan,
      fakeCore(log),
      settingsFor(store, path),
    );
    const keys = lines.slice(1).map((_, k) => k);
    const badKeys = keys.filter((k) => ["bad", "00:00", REJECTED_TIME].includes(valueOf(k)));
    assertEquals([summary.rowsLoaded, summary.badRows, summary.abortedBecause], [
      12_000 - badKeys.length,
      badKeys.length,
      null,
    ]);
    assertEquals(new TextDecoder().decode(log.pushed.reduce((all, chunk) => new Uint8Array([...all, ...chunk]))), text);

    const badText = await Deno.readTextFile(badLog.badPath);
    assertEquals(badText, ["k,v", ...badKeys.map((k) => `${k},${valueOf(k)}`)].join("\n") + "\n");
    const errors = (await Deno.readTextFile(badLog.logPath)).trimEnd().split("\n");
    assertEquals(errors[0], `${path}:9: field 2 (time): column v: not a time of day; value "bad"`);
    assert(errors[0].endsWith(`; value "bad"`), errors[0]);
    assertEquals(errors.find((entry) => entry.startsWith(`${path}:779: `)), `${path}:779: rejected by the server: Invalid (0x2200): no such thing`);
    assertEquals(errors.length, badKeys.length);

    assert(seen.length >= 4, `checkpoints before each piece and at the end (${seen.length})`);
    for (const { checkpoint, bad } of seen) {
      const state = checkpoint.files[0];
      const before = text.slice(0, state.offset);
      assert(before === "" || before.endsWith("\n"), "a watermark is a record boundary");
      const rowsBefore = Math.max(0, before.split("\n").length - 2);
      const badBefore = badKeys.filter((k) => k < rowsBefore);
      assertEquals(state.line, rowsBefore + (state.offset === 0 ? 1 : 2));
      assertEquals([state.rowsLoaded, state.badRows], [rowsBefore - badBefore.length, badBefore.length]);
      const expectedBad = badBefore.length === 0 ? "" : ["k,v", ...badBefore.map((k) => `${k},${valueOf(k)}`)].join("\n") + "\n";
      assertEquals(bad, expectedBad, `the bad file at a checkpoint at ${state.offset}`);
      assertEquals(state.badFiles.bad, new TextEncoder().encode(expectedBad).length);
    }
    const last = seen.at(-1)!.checkpoint;
    assertEquals([last.complete, last.files[0].done, last.files[0].offset], [true, true, text.length]);
  });
});

for (const gzip of [false, true]) {
  Deno.test(`core path: a resume ${gzip ? "of a .gz " : ""}pushes the header, then the data; lines map back`, async () => {
    await withScene(3_000, async ({ dir, path, text, lines }) => {
      const resumeLine = 1_002;
      const offset = lines.slice(0, resumeLine - 1).join("\n").length + 1;
      const badLog = new BadRowLog(dir, "in");
      await Deno.writeTextFile(badLog.badPath, "k,v\n");
      await badLog.resumeAt({ bad: 4, log: 0, uncertain: 0 });
      const store = new CheckpointStore(dir, "job", false);
      const [file] = await expandInputs([path]);
      const resume = {
        path,
        size: null,
        mtimeMs: null,
        offset,
        line: resumeLine,
        done: false,
        rowsLoaded: 990,
        badRows: 10,
        uncertainRows: 0,
        badFiles: { bad: 4, log: 0, uncertain: 0 },
      };
      const input: CoreLoadInput = { input: file, format: "csv", badLog, start: { offset, line: resumeLine }, resume };
      const log: CoreLog = { pushed: [] };
      const summary = await runCoreLoad([input], plan, fakeCore(log), settingsFor(store, path));
      const pushed = new TextDecoder().decode(log.pushed.reduce((all, chunk) => new Uint8Array([...all, ...chunk])));
      assertEquals(pushed, "k,v\n" + text.slice(offset));
      const errors = (await Deno.readTextFile(badLog.logPath)).trimEnd().split("\n");
      assertEquals(errors[0].startsWith(`${path}:1009: field 2 (time)`), true, errors[0]);
      assertEquals(summary.previouslyLoaded, 990);
      const done = (await store.read())!.checkpoint.files[0];
      assertEquals([done.done, done.offset, done.line], [true, text.length, 3_002]);
      assertEquals(done.rowsLoaded + done.badRows, 1_000 + 2_000);
    }, gzip);
  });
}

Deno.test("core path: --split stops at the core's position of the range end", async () => {
  await withScene(100, async ({ dir, path, text }) => {
    const start = text.indexOf("\n40,") + 1;
    const stopAfter = text.indexOf("\n60,") + 1;
    const [file] = await expandInputs([path]);
    const log: CoreLog = { pushed: [] };
    const summary = await runCoreLoad(
      [{ input: file, format: "csv", badLog: new BadRowLog(dir, "in"), start: { offset: start, line: 42 }, stopAfter }],
      plan,
      fakeCore(log),
      settingsFor(null, path, { checkpoint: undefined }),
    );
    // The row starting right at the range end is still this process's; the next is not.
    assertEquals(log.options!.stopAtOffset, 4 + (stopAfter + 1 - start));
    assertEquals(summary.rowsLoaded + summary.badRows, 21);
  });
});

Deno.test("core path: a refusal no row gets past stops the load without a bad row or a checkpoint past it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-core-path-" });
  try {
    const rows = ["k,v"];
    for (let k = 0; k < 5000; k++) rows.push(`${k},${k === 4000 ? FORBIDDEN_TIME : "10:00"}`);
    const text = rows.join("\n") + "\n";
    const path = `${dir}/in.csv`;
    await Deno.writeTextFile(path, text);
    const store = new CheckpointStore(dir, "job", false);
    const badLog = new BadRowLog(dir, "in");
    const [file] = await expandInputs([path]);
    const summary = await runCoreLoad(
      [{ input: file, format: "csv", badLog }],
      plan,
      fakeCore({ pushed: [] }),
      settingsFor(store, path),
    );
    assertEquals(summary.abortedBecause, "cannot write: Unauthorized (0x2100): not you");
    assertEquals(summary.badRows, 0);
    assertEquals(await Deno.stat(badLog.badPath).then(() => true, () => false), false);
    const saved = (await store.read())!.checkpoint.files[0];
    assert(saved.offset <= text.indexOf("\n4000,") + 1, `checkpoint at ${saved.offset}`);
    assertEquals(saved.done, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("core path: the core's rejections, read from the record's fields, in the log's words", () => {
  const rejected = (serverCode: number | null, attempts: number, reason: string) =>
    ({ kind: "rejected", serverCode, attempts, reason }) as const;
  assertEquals(describeRejection(rejected(0x2200, 3, "bad key")), {
    reason: "rejected by the server (after 2 retries): Invalid (0x2200): bad key",
    fatal: false,
  });
  assertEquals(describeRejection(rejected(0x1100, 1, "0 of 1")), {
    reason: "rejected by the server: Write timeout (0x1100): 0 of 1",
    fatal: false,
  });
  assertEquals(describeRejection(rejected(null, 4, "request timed out after 12000 ms")), {
    reason: "not written (after 3 retries): request timed out after 12000 ms",
    fatal: false,
  });
  assertEquals(describeRejection(rejected(0x0100, 1, "user s3cret"), ["s3cret"]), {
    reason: "cannot write: Bad credentials (0x0100): user ***",
    fatal: true,
  });
  const notSent = { kind: "not_sent", serverCode: null, attempts: 0, reason: "no connection is open" } as const;
  assertEquals(describeRejection(notSent), { reason: "cannot write: no connection is open", fatal: true });
  assertEquals(describeRejection({ kind: "value", serverCode: null, attempts: 0, reason: "column v: expected int" }), null);
});

Deno.test("core path: an uncertain row says whether an earlier run or this one sent it, and what was lost", () => {
  const tail = "it may or may not have been applied, and the write is not idempotent, so it was not sent again (check it, then load it on its own if needed)";
  assertEquals(uncertainReason({ serverCode: null, attempts: 0, reason: "sent before the interruption" }), `sent before the interruption but never acknowledged: ${tail}`);
  assertEquals(
    uncertainReason({ serverCode: null, attempts: 1, reason: "connection closed: the server closed the connection" }),
    `sent but never acknowledged (connection closed: the server closed the connection): ${tail}`,
  );
  assertEquals(
    uncertainReason({ serverCode: 0x1100, attempts: 1, reason: "token s3cret timed out" }, ["s3cret"]),
    `sent but never acknowledged (Write timeout (0x1100): token *** timed out): ${tail}`,
  );
});

Deno.test("core path: input from a start offset, with the header pushed first", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-core-input-" });
  try {
    const text = "\ufeffa,b\n1,x\n2,y\n3,z\n";
    await Deno.writeTextFile(`${dir}/in.csv`, text);
    const [input] = await expandInputs([`${dir}/in.csv`]);
    const bytes = new TextEncoder().encode(text);
    const read = async (start: { offset: number; line: number }, header: boolean) => {
      const opened = await openCoreInput(input, start, header ? { delimiter: ",", quote: '"' } : null);
      const chunks: number[] = [];
      for await (const chunk of opened.chunks) chunks.push(...chunk);
      return { ...opened, pushed: new Uint8Array(chunks) };
    };
    const whole = await read({ offset: 0, line: 1 }, true);
    assertEquals([whole.header?.raw, whole.header?.fields, whole.pushed.length], [
      new TextEncoder().encode("a,b"),
      ["a", "b"],
      bytes.length,
    ]);
    assertEquals(whole.positions, PositionMap.identity());

    const mid = await read({ offset: 15, line: 3 }, true);
    assertEquals(mid.pushed, new Uint8Array([...bytes.subarray(0, 7), ...bytes.subarray(15)]));
    assertEquals([mid.positions.fileOffset(7), mid.positions.fileOffset(11), mid.positions.fileOffset(3)], [15, 19, 15]);
    assertEquals([mid.positions.fileLine(2), mid.positions.fileLine(3)], [3, 4]);
    assertEquals(mid.positions.pushedOffset(19), 11);

    const plain = await read({ offset: 15, line: 3 }, false);
    assertEquals(plain.pushed, bytes.subarray(15));
    assertEquals([plain.positions.fileOffset(4), plain.positions.fileLine(2)], [19, 4]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("core path: --rate pushes a twentieth of a second's lines at a time, never ahead", () => {
  const pacer = new LinePacer(400);
  const chunk = new TextEncoder().encode("1\n".repeat(100));
  assertEquals(pacer.cut(chunk, 0, chunk.length), { end: 40, lines: 20 });
  assertEquals(pacer.cut(chunk, 190, chunk.length), { end: 200, lines: 5 });
  assertEquals(pacer.cut(chunk, 0, 7), { end: 6, lines: 3 });
  assertEquals(pacer.cut(new Uint8Array(10), 0, 10), { end: 10, lines: 0 });
});

Deno.test("core path: --rate waits exactly each piece's share of a second, on a simulated clock", async () => {
  let now = 1000;
  const sleeps: number[] = [];
  const clock = { now: () => now, sleep: (ms: number) => (sleeps.push(ms), now += ms, Promise.resolve()) };
  const pacer = new LinePacer(400, clock);
  // 80 lines at 400/s: four waits of 50 ms, back to back.
  for (let i = 0; i < 4; i++) await pacer.wait(20);
  assertEquals(sleeps, [50, 50, 50, 50]);
  assertEquals(now, 1200);
  // No lines, no wait; time spent elsewhere (a slow server) is not made up with a burst.
  await pacer.wait(0);
  now += 500;
  await pacer.wait(20);
  assertEquals(sleeps, [50, 50, 50, 50, 50]);
  // Shares under a millisecond add up until they are worth a sleep.
  const fast = new LinePacer(4000, clock);
  for (let i = 0; i < 3; i++) await fast.wait(1);
  assertEquals(sleeps.length, 5);
  await fast.wait(1);
  assertEquals(sleeps, [50, 50, 50, 50, 50, 1]);
});

Deno.test("core path: a file of many read chunks is pushed byte for byte though the reader reuses its buffer", async () => {
  // The reader reads a plain file into one buffer again and again (input.ts): a chunk is
  // valid only until the next is asked for. Kept chunks must be copies: the header's, read
  // before the data, here longer than a read (256 KB), so that it takes three.
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-core-input-" });
  try {
    const names = Array.from({ length: 40_000 }, (_, i) => `column_${String(i).padStart(6, "0")}`);
    const rows = Array.from({ length: 30_000 }, (_, i) => `${i},${String(i * 7919).repeat(1 + (i % 13))}`);
    const text = names.join(",") + "\n" + rows.join("\n") + "\n";
    await Deno.writeTextFile(`${dir}/in.csv`, text);
    const [input] = await expandInputs([`${dir}/in.csv`]);
    const bytes = new TextEncoder().encode(text);
    const headerEnd = bytes.indexOf(0x0a) + 1;
    assert(headerEnd > 2 * 256 * 1024 && bytes.length > headerEnd + 4 * 256 * 1024, "the header spans three reads, the data several more");
    const read = async (start: { offset: number; line: number }, header: boolean) => {
      const opened = await openCoreInput(input, start, header ? { delimiter: ",", quote: '"' } : null);
      // As the core does: each chunk is copied before the next is asked for.
      const copies: Uint8Array[] = [];
      for await (const chunk of opened.chunks) copies.push(chunk.slice());
      return { ...opened, pushed: await new Blob(copies as Uint8Array<ArrayBuffer>[]).bytes() };
    };
    const whole = await read({ offset: 0, line: 1 }, true);
    assertEquals(whole.header?.fields, names);
    assert(whole.pushed.length === bytes.length && whole.pushed.every((byte, i) => byte === bytes[i]), "every byte of the file, in order");

    const rowStart = headerEnd + rows.slice(0, 20_000).join("\n").length + 1;
    const mid = await read({ offset: rowStart, line: 20_002 }, true);
    const expected = new Uint8Array([...bytes.subarray(0, headerEnd), ...bytes.subarray(rowStart)]);
    assert(mid.pushed.length === expected.length && mid.pushed.every((byte, i) => byte === expected[i]), "the header, then the file from the start offset");

    const plain = await read({ offset: 0, line: 1 }, false);
    assert(plain.pushed.length === bytes.length && plain.pushed.every((byte, i) => byte === bytes[i]), "without a header: every byte");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
