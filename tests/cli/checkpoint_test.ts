// checkResumeState without a server: where a watermark may point in a plain and a gzip
// input (line ends, CRLF, the end of data without a final newline), and stdin.

import { CliFailure } from "../../cli/errors.ts";
import { checkResumeState, type FileCheckpoint, inputIdentity } from "../../cli/load/checkpoint.ts";
import type { InputFile } from "../../cli/load/input.ts";
import { assertEquals, assertRejects } from "./assert.ts";

// CRLF, no newline after the last record: records start at offsets 0, 4 and 7; the data ends at 8.
const TEXT = "id\r\n1\r\n2";

async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function verdicts(path: string, gz: boolean, offsets: number[]): Promise<string[]> {
  const identity = await inputIdentity(path);
  const input: InputFile = { path, size: identity.size, compression: gz ? "gzip" : null, format: "csv" };
  const results: string[] = [];
  for (const offset of offsets) {
    const state: FileCheckpoint & { fingerprint: string | null } = {
      path,
      size: identity.size,
      mtimeMs: identity.mtimeMs,
      fingerprint: identity.fingerprint,
      offset,
      line: 1,
      done: false,
      rowsLoaded: 0,
      badRows: 0,
      uncertainRows: 0,
      badFiles: { bad: 0, log: 0, uncertain: 0 },
    };
    try {
      await checkResumeState("ck.json", state, identity, input);
      results.push(`${offset}: ok`);
    } catch (error) {
      if (!(error instanceof CliFailure)) throw error;
      results.push(`${offset}: ${error.message.replace(/^cannot resume from ck\.json: /, "").replace(/;.*$/, "")}`);
    }
  }
  return results;
}

Deno.test("a watermark must start a record: after LF, not between CR and LF; the end of data counts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-checkpoint-" });
  try {
    const bytes = new TextEncoder().encode(TEXT);
    await Deno.writeFile(`${dir}/plain.csv`, bytes);
    await Deno.writeFile(`${dir}/packed.csv.gz`, await gzip(bytes));
    for (const [path, gz] of [[`${dir}/plain.csv`, false], [`${dir}/packed.csv.gz`, true]] as const) {
      assertEquals(await verdicts(path, gz, [0, 4, 3, 2, 7, 6, 8, 9]), [
        "0: ok",
        "4: ok",
        `3: offset 3 of ${path} is not at the start of a record`,
        `2: offset 2 of ${path} is not at the start of a record`,
        "7: ok",
        `6: offset 6 of ${path} is not at the start of a record`,
        "8: ok",
        `9: offset 9 of ${path} is past the end of its data`,
      ]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a changed input is refused even when its size and mtime are the same", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-checkpoint-" });
  try {
    const path = `${dir}/in.csv`;
    await Deno.writeTextFile(path, TEXT);
    const before = await inputIdentity(path);
    const info = await Deno.stat(path);
    await Deno.writeTextFile(path, TEXT.replace("1", "7"));
    await Deno.utime(path, info.atime!, info.mtime!);
    const after = await inputIdentity(path);
    assertEquals([after.size, after.mtimeMs, after.fingerprint === before.fingerprint], [
      before.size,
      before.mtimeMs,
      false,
    ]);
    const state = {
      path,
      size: before.size,
      mtimeMs: before.mtimeMs,
      fingerprint: before.fingerprint,
      offset: 0,
      line: 1,
      done: true,
      rowsLoaded: 1,
      badRows: 0,
      uncertainRows: 0,
      badFiles: { bad: 0, log: 0, uncertain: 0 },
    };
    const input: InputFile = { path, size: after.size, compression: null, format: "csv" };
    const error = await assertRejects(() => checkResumeState("ck.json", state, after, input), CliFailure);
    assertEquals(
      error.message,
      `cannot resume from ck.json: ${path} is not the file the checkpoint was taken of ` +
        `(its content fingerprint differs); remove the checkpoint to load ${path} from the start`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
