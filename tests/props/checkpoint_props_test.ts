// Properties of the CLI's readers of its own files, which a crash, a disk or a person may
// have damaged: the load checkpoint and the write-ahead journal. Any damage is a CliFailure
// naming the file, or (for harmless damage such as changed whitespace) the same content;
// never a silent skip, another error class, or a different checkpoint.
// Run: deno test -A tests/props/checkpoint_props_test.ts (CQLWIRE_PROPS_RUNS for more).
import { type Checkpoint, CheckpointStore, checkResumeState, inputIdentity, parseJournal } from "../../cli/load/checkpoint.ts";
import { CliFailure } from "../../cli/errors.ts";
import { assertExact } from "../exact.mjs";
import { check, fc } from "./settings.ts";

const count = fc.nat({ max: 2 ** 40 });
const fileCheckpoint = fc.record({
  path: fc.string({ maxLength: 12 }),
  size: fc.option(count, { nil: null }),
  mtimeMs: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)), { nil: null }),
  offset: count,
  line: fc.integer({ min: 1, max: 2 ** 40 }),
  done: fc.boolean(),
  rowsLoaded: count,
  badRows: count,
  uncertainRows: count,
  badFiles: fc.record({ bad: count, log: count, uncertain: count }, { noNullPrototype: true }),
  acked: fc.array(count, { maxLength: 3 }),
  sent: fc.array(count, { maxLength: 3 }),
}, { noNullPrototype: true });
const checkpointArb: fc.Arbitrary<Checkpoint> = fc.record({
  version: fc.constant(1 as const),
  job: fc.record({
    table: fc.string({ maxLength: 12 }),
    query: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
    inputs: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
    split: fc.option(fc.string({ maxLength: 5 }), { nil: null }),
  }, { noNullPrototype: true }),
  updatedAt: fc.string({ maxLength: 24 }),
  complete: fc.boolean(),
  files: fc.array(fileCheckpoint, { maxLength: 3 }),
}, { noNullPrototype: true });

const directory = Deno.makeTempDirSync({ prefix: "cqlwire-propfuzz-" });
const store = new CheckpointStore(directory, "props", true);
const withFingerprints = (c: Checkpoint) => ({ ...c, files: c.files.map((f) => ({ ...f, fingerprint: null })) });

async function readBack(text: string | Uint8Array): Promise<unknown> {
  if (typeof text === "string") Deno.writeTextFileSync(store.path, text);
  else Deno.writeFileSync(store.path, text);
  try {
    return (await store.read())!.checkpoint;
  } catch (e) {
    if (!(e instanceof CliFailure)) throw new Error(`expected CliFailure, got ${(e as Error)?.name}: ${(e as Error)?.message}`, { cause: e });
    if (!e.message.startsWith(`${store.path} is not a valid checkpoint: `)) throw new Error(`unclear message: ${e.message}`);
    return e;
  }
}

Deno.test("a checkpoint reads back exactly as written", async () => {
  await check(fc.asyncProperty(checkpointArb, async (c) => {
    store.write(c);
    assertExact(await readBack(Deno.readTextFileSync(store.path)), withFingerprints(c));
  }));
});

Deno.test("a damaged checkpoint (bytes changed, cut, appended) is a CliFailure or reads the same", async () => {
  const damage = fc.oneof(
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }).map((flips) => (b: Uint8Array) => {
      const out = b.slice();
      for (const [at, value] of flips) out[at % out.length] = value;
      return out;
    }),
    fc.nat().map((cut) => (b: Uint8Array) => b.subarray(0, cut % b.length)),
    fc.uint8Array({ minLength: 1, maxLength: 8 }).map((extra) => (b: Uint8Array) => new Uint8Array([...b, ...extra])),
  );
  await check(fc.asyncProperty(checkpointArb, damage, async (c, hurt) => {
    store.write(c);
    const outcome = await readBack(hurt(Deno.readFileSync(store.path)));
    if (!(outcome instanceof CliFailure)) assertExact(outcome, withFingerprints(c));
  }));
});

Deno.test("a checkpoint with a field changed to a hostile value (checksum recomputed) is a CliFailure", async () => {
  const hostile = fc.constantFrom<unknown>(-1, 1.5, 2 ** 53 + 2, 1e300, "7", null, [], {}, true, 0.1);
  const numericField = fc.constantFrom("offset", "line", "rowsLoaded", "badRows", "uncertainRows", "size");
  await check(fc.asyncProperty(checkpointArb.filter((c) => c.files.length > 0), fc.nat(), numericField, hostile, async (c, which, field, value) => {
    const file = c.files[which % c.files.length] as unknown as Record<string, unknown>;
    if (field === "size" && value === null) return; // null is a valid size (stdin)
    file[field] = value;
    // What a buggy writer would produce: the right checksum over wrong content.
    store.write(c);
    const outcome = await readBack(Deno.readTextFileSync(store.path));
    if (!(outcome instanceof CliFailure)) throw new Error(`${field}=${JSON.stringify(value)} was accepted`);
  }));
});

Deno.test("arbitrary text as a checkpoint is a CliFailure", async () => {
  await check(fc.asyncProperty(fc.oneof(fc.string({ maxLength: 80 }), fc.json()), async (text) => {
    const outcome = await readBack(text);
    if (!(outcome instanceof CliFailure)) throw new Error(`${JSON.stringify(text)} was accepted`);
  }));
});

// ---------------------------------------------------------------------------------------
// The journal

const files = [{ offset: 100 }, { offset: 0 }];
const entry = fc.tuple(fc.constantFrom("S", "A"), fc.constantFrom(0, 1), fc.nat({ max: 2 ** 40 }))
  .map(([kind, file, offset]) => ({ kind, file, offset: offset + files[file].offset }));

function journalOf(entries: { kind: string; file: number; offset: number }[]): string {
  return entries.map((e) => `${e.kind} ${e.file} ${e.offset}\n`).join("");
}

function expectedSets(entries: { kind: string; file: number; offset: number }[]) {
  const acked = new Set<string>();
  const sent = new Set<string>();
  for (const e of entries) (e.kind === "A" ? acked : sent).add(`${e.file}:${e.offset}`);
  return { acked, sent };
}

function parsedOrFailure(text: string): unknown {
  try {
    return parseJournal(text, "j.journal", files);
  } catch (e) {
    if (!(e instanceof CliFailure)) throw new Error(`expected CliFailure, got ${(e as Error)?.name}: ${(e as Error)?.message}`, { cause: e });
    if (!/^j\.journal is not a valid journal: line [0-9]+ /.test(e.message)) throw new Error(`unclear message: ${e.message}`);
    return e;
  }
}

Deno.test("a journal cut anywhere gives exactly its complete lines", () => {
  check(fc.property(fc.array(entry, { maxLength: 8 }), fc.nat(), (entries, where) => {
    const text = journalOf(entries);
    const cut = text.length === 0 ? 0 : where % (text.length + 1);
    const complete = text.slice(0, cut).split("\n").length - 1;
    assertExact(parseJournal(text.slice(0, cut), "j.journal", files), expectedSets(entries.slice(0, complete)));
  }));
});

Deno.test("a damaged journal is a CliFailure naming the line, or reads as some journal", () => {
  check(fc.property(fc.array(entry, { minLength: 1, maxLength: 8 }), fc.nat(), fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 6 }), (entries, where, junk) => {
    const text = journalOf(entries);
    const at = where % text.length;
    parsedOrFailure(text.slice(0, at) + junk + text.slice(at));
  }));
  check(fc.property(fc.string({ unit: "binary-ascii", maxLength: 100 }), (text) => {
    parsedOrFailure(text);
  }));
});

Deno.test("journal lines for another input, below the watermark or with huge numbers are refused", () => {
  for (const line of ["S 2 5", "A 0 99", "A 0 1234567890123456", "S 99999999999999999999 1", "S 0 -1", "S  0 1", "X 0 100", ""]) {
    const outcome = parsedOrFailure(`A 1 7\n${line}\nS 1 9\n`);
    if (!(outcome instanceof CliFailure) || !outcome.message.includes("line 2 ")) throw new Error(`${JSON.stringify(line)} was not refused as line 2`);
  }
});

// Regression: the torn last line "A 0 12" of "A 0 123" used to count as an acknowledgement of
// the row at offset 12, which --resume would then skip.
Deno.test("a journal's last line without its newline is not an entry, however whole it looks", () => {
  assertExact(parseJournal("S 1 5\nA 1 12", "j.journal", files), expectedSets([{ kind: "S", file: 1, offset: 5 }]));
});

// ---------------------------------------------------------------------------------------
// Resuming: the watermark must be a record start within the input's data

/** The rule the watermark must satisfy: the start, after a line end, or the end of the data. */
function isRecordStart(data: Uint8Array, offset: number): boolean {
  if (offset === 0 || offset === data.length) return true;
  if (offset > data.length) return false;
  const before = data[offset - 1];
  return before === 0x0a || (before === 0x0d && data[offset] !== 0x0a);
}

async function gzipped(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
}

Deno.test("resuming at any offset is allowed exactly at record starts within the data, else a CliFailure", async () => {
  const lineData = fc.array(fc.constantFrom(0x61, 0x2c, 0x0a, 0x0d), { maxLength: 40 }).map((bytes) => new Uint8Array(bytes));
  const offsetFor = (size: number) => fc.oneof(fc.integer({ min: 0, max: size + 2 }), fc.constantFrom(2 ** 31, 2 ** 53 - 1));
  await check(fc.asyncProperty(lineData.chain((data) => fc.tuple(fc.constant(data), offsetFor(data.length), fc.boolean())), async ([data, offset, gzip]) => {
    const path = `${directory}/input${gzip ? ".csv.gz" : ".csv"}`;
    Deno.writeFileSync(path, gzip ? await gzipped(data) : data);
    const identity = await inputIdentity(path);
    const state = {
      path, size: identity.size, mtimeMs: identity.mtimeMs, fingerprint: identity.fingerprint, offset, line: 1, done: false,
      rowsLoaded: 0, badRows: 0, uncertainRows: 0, badFiles: { bad: 0, log: 0, uncertain: 0 },
    };
    let refused: CliFailure | null = null;
    try {
      await checkResumeState("c.json", state, identity, { path, size: identity.size, compression: gzip ? "gzip" : null, format: "csv" });
    } catch (e) {
      if (!(e instanceof CliFailure)) throw e;
      if (!e.message.startsWith("cannot resume from c.json: ")) throw new Error(`unclear message: ${e.message}`);
      refused = e;
    }
    if ((refused === null) !== isRecordStart(data, offset)) throw new Error(`offset ${offset} of ${data.length} bytes: ${refused?.message ?? "accepted"}`);
  }), 0.5);
});

// Regression, found by the property above: a watermark of 2^53-1 (a valid count to the schema)
// made resuming seek past what the OS addresses and crash with "TypeError: Invalid argument".
Deno.test("a watermark far past the end of a plain input is refused, not a crash", async () => {
  const path = `${directory}/huge.csv`;
  Deno.writeTextFileSync(path, "a,b\n");
  const identity = await inputIdentity(path);
  const state = {
    path, size: identity.size, mtimeMs: identity.mtimeMs, fingerprint: identity.fingerprint, offset: 2 ** 53 - 1, line: 1,
    done: false, rowsLoaded: 0, badRows: 0, uncertainRows: 0, badFiles: { bad: 0, log: 0, uncertain: 0 },
  };
  let failure: unknown = null;
  await checkResumeState("c.json", state, identity, { path, size: identity.size, compression: null, format: "csv" }).catch((e) => failure = e);
  if (!(failure instanceof CliFailure)) throw new Error(`expected CliFailure, got ${failure}`);
  assertExact(failure.message, `cannot resume from c.json: offset ${2 ** 53 - 1} of ${path} is past the end of its data; remove the checkpoint to load ${path} from the start`);
});
