// `cqlwire load` inputs beyond plain files and gzip (issue #14 item 4), run as bin/cqlwire
// against the real local Cassandra: .zst and .bz2 files made by the system's zstd and bzip2
// tools, the same on stdin (found by their magic bytes), corrupt files, and http:// URLs
// served by a local Deno.serve (plain, compressed by name or by bytes, 404, a stalled body,
// no answer, --resume refused). Every load's rows are compared exactly.

import { assert, assertEquals, assertMatch } from "./assert.ts";
import { createKeyspace, jsonRows, ok } from "./cli_helpers.ts";
import { runCli } from "./run.ts";
import { expandInputs, InputReader } from "../../cli/load/input.ts";

const KEYSPACE = "inputs_load";
const RUN = `${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;
const CSV = 'k,name,score\n1,one,1.5\n2,"two, quoted",-0.0\n3,"line\nbreak",NaN\n';
const ROWS = [
  '{"k":1,"name":"one","score":1.5}',
  '{"k":2,"name":"two, quoted","score":-0.0}',
  '{"k":3,"name":"line\\nbreak","score":"NaN"}',
];

// One table, one partition per case (--set src=...): a CREATE TABLE per case would be a
// schema change each, slow on the shared server.
const TABLE = `${KEYSPACE}.t_${RUN}`;
let cases = 0;
/** The load flags that write a new case's partition, and the way to read it back. */
function freshTable(): Promise<string> {
  return Promise.resolve(`case${++cases}`);
}

function target(src: string): string[] {
  return ["--table", TABLE, "--set", `src=${src}`];
}

async function tableRows(src: string): Promise<string[]> {
  return await jsonRows(`SELECT k, name, score FROM ${TABLE} WHERE src = '${src}'`);
}

/** Compresses `text` with a system tool (zstd or bzip2) into `path`. */
async function compressWithTool(tool: "zstd" | "bzip2", text: string, path: string): Promise<Uint8Array> {
  const child = new Deno.Command(tool, { args: ["-c"], stdin: "piped", stdout: "piped" }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const output = await child.output();
  assertEquals(output.code, 0, `${tool} failed`);
  await Deno.writeFile(path, output.stdout);
  return output.stdout;
}

/**
 * A local HTTP server for the URL cases. `stalling` paths send their headers and the bytes
 * given, then nothing (the body never ends); `/hung.csv` never answers (until close).
 */
function serve(
  files: Record<string, { body: Uint8Array; headers?: Record<string, string> }>,
  stalling: Record<string, Uint8Array> = {},
) {
  const abort = new AbortController();
  const stalls: Array<ReadableStreamDefaultController<Uint8Array>> = [];
  const hung: Array<(response: Response) => void> = [];
  const requests: string[] = [];
  const methods: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    requests.push(path);
    methods.push(request.method);
    const first = stalling[path];
    if (first !== undefined) {
      return new Response(
        new ReadableStream({
          start(controller) {
            if (first.length > 0) controller.enqueue(first);
            stalls.push(controller);
          },
        }),
      );
    }
    if (path === "/hung.csv") return new Promise<Response>((resolve) => hung.push(resolve));
    const file = files[path];
    if (file === undefined) return new Response("no such file", { status: 404, statusText: "Not Found" });
    return new Response(file.body as Uint8Array<ArrayBuffer>, { headers: file.headers });
  });
  return {
    url: (path: string) => `http://127.0.0.1:${server.addr.port}${path}`,
    requests,
    methods,
    close: async () => {
      for (const answer of hung) answer(new Response("closing", { status: 503 }));
      for (const stall of stalls) {
        try {
          stall.close();
        } catch {
          // the client went away first
        }
      }
      abort.abort();
      await server.finished.catch(() => {});
    },
  };
}

Deno.test({
  name: "load inputs: zstd, bzip2, stdin by magic bytes, corrupt files, http URLs (real Cassandra)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await createKeyspace(KEYSPACE);
    await ok(["query", `CREATE TABLE ${TABLE} (src text, k int, name text, score double, PRIMARY KEY (src, k))`]);
    const work = await Deno.makeTempDir({ prefix: "cqlwire-inputs-" });
    const zst = await compressWithTool("zstd", CSV, `${work}/data.csv.zst`);
    const bz2 = await compressWithTool("bzip2", CSV, `${work}/data.csv.bz2`);
    await Deno.copyFile(`${work}/data.csv.zst`, `${work}/data.csv.zstd`);
    const gz = new Uint8Array(await new Response(new Blob([CSV]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
    const logs = ["--bad-dir", `${work}/logs`, "--quiet"];
    try {
      for (const name of ["data.csv.zst", "data.csv.zstd", "data.csv.bz2"]) {
        await t.step(`${name} is decompressed and loaded exactly`, async () => {
          const table = await freshTable();
          const result = await ok(["load", `${work}/${name}`, ...target(table), ...logs]);
          assertMatch(result.stdout, /^3 rows loaded, 0 bad rows/);
          assertEquals(await tableRows(table), ROWS);
        });
      }

      for (const [kind, bytes] of [["zstd", zst], ["bzip2", bz2]] as const) {
        await t.step(`stdin starting with ${kind}'s magic bytes is decompressed`, async () => {
          const table = await freshTable();
          const result = await runCli(["load", "-", ...target(table), ...logs], { stdin: bytes });
          assertEquals(result.code, 0, result.stderr);
          assertEquals(await tableRows(table), ROWS);
        });
      }

      await t.step("a truncated .zst is an error naming the file and the bytes read, exit 1", async () => {
        const big = "k,name,score\n" + Array.from({ length: 20000 }, (_, i) => `${i},name ${i},${i}.5`).join("\n") + "\n";
        const full = await compressWithTool("zstd", big, `${work}/full.csv.zst`);
        const cut = `${work}/cut.csv.zst`;
        await Deno.writeFile(cut, full.subarray(0, Math.floor(full.length / 2)));
        const table = await freshTable();
        const result = await runCli(["load", cut, ...target(table), ...logs]);
        assertEquals(result.code, 1, result.stderr);
        assertMatch(
          result.stderr,
          new RegExp(`${cut}: corrupt zstd data within its first ${Math.floor(full.length / 2)} bytes \\([0-9]+ bytes of data decompressed before it\\): unexpected EOF`),
        );
      });

      await t.step("a .bz2 with a damaged block is an error naming the file, exit 1", async () => {
        const damaged = new Uint8Array(bz2);
        damaged[damaged.length - 20] ^= 0xff;
        const path = `${work}/damaged.csv.bz2`;
        await Deno.writeFile(path, damaged);
        const table = await freshTable();
        const result = await runCli(["load", path, ...target(table), ...logs]);
        assertEquals(result.code, 1, result.stderr);
        assertMatch(result.stderr, new RegExp(`${path}: corrupt bzip2 data within its first ${bz2.length} bytes`));
      });

      const server = serve({
        "/data.csv": { body: new TextEncoder().encode(CSV) },
        "/data.csv.zst": { body: zst },
        "/dir/data.csv.bz2": { body: bz2 },
        // No name to go by: the magic bytes decide.
        "/export": { body: gz },
        // A .gz served with Content-Encoding: fetch undoes the encoding, the bytes are plain.
        "/encoded.csv.gz": { body: gz, headers: { "content-encoding": "gzip" } },
        "/typed": { body: zst, headers: { "content-type": "application/zstd" } },
        "/lies.csv.zst": { body: new TextEncoder().encode(CSV) },
        "/rows.jsonl": { body: new TextEncoder().encode('{"k":1,"name":"one","score":1.5}\n') },
      }, {
        "/silent.csv": new Uint8Array(0),
        "/stalled.csv": new TextEncoder().encode("k,name,score\n1,one,1.5\n"),
        "/stalled.csv.gz": gz.subarray(0, gz.length >> 1),
      });
      try {
        for (const path of ["/data.csv", "/data.csv.zst", "/dir/data.csv.bz2", "/export", "/encoded.csv.gz", "/typed"]) {
          await t.step(`URL ${path} is streamed and loaded exactly`, async () => {
            const table = await freshTable();
            const result = await ok(["load", server.url(path), ...target(table), "--json", ...logs]);
            assertEquals(JSON.parse(result.stdout).rowsLoaded, 3);
            assertEquals(await tableRows(table), ROWS);
          });
        }

        await t.step("URL format by its path: .jsonl is JSON Lines", async () => {
          const table = await freshTable();
          await ok(["load", server.url("/rows.jsonl"), ...target(table), ...logs]);
          assertEquals(await tableRows(table), [ROWS[0]]);
        });

        await t.step("URL progress: the bytes read are counted against its Content-Length", async () => {
          const [input] = await expandInputs([server.url("/data.csv.zst")]);
          assertEquals([input.size, input.compression, input.format, input.url], [null, "zstd", "csv", true]);
          const reader = new InputReader(input);
          const chunks: Uint8Array[] = [];
          for await (const chunk of reader.bytes(0)) chunks.push(chunk);
          assertEquals(new TextDecoder().decode(await new Blob(chunks as Uint8Array<ArrayBuffer>[]).bytes()), CSV);
          assertEquals([input.size, reader.rawBytesRead], [zst.length, zst.length]);
        });

        await t.step("a name that says zstd over bytes that are not is an error", async () => {
          const table = await freshTable();
          const result = await runCli(["load", server.url("/lies.csv.zst"), ...target(table), ...logs]);
          assertEquals(result.code, 1, result.stderr);
          assertEquals(
            result.stderr.trim(),
            `error: ${server.url("/lies.csv.zst")}: its name or Content-Type says zstd, but its bytes do not start as zstd data does`,
          );
        });

        await t.step("a 404 is an error naming the URL and the status, exit 1", async () => {
          const table = await freshTable();
          const result = await runCli(["load", server.url("/missing.csv"), ...target(table), ...logs]);
          assertEquals(result.code, 1, result.stderr);
          assertEquals(result.stderr.trim(), `error: ${server.url("/missing.csv")}: the server answered HTTP 404 Not Found`);
          assertEquals(await tableRows(table), []);
        });

        // Every wait on the server has a deadline: the headers, the first byte, each later
        // piece, also under a decompressor. The run must end with exit 1 and the message well
        // within STALL_BOUND_MS (far above the 500 ms, far below forever); runCli kills a
        // run that outlives it, and the step fails rather than hanging.
        const STALL_BOUND_MS = 30_000;
        for (
          const [path, what] of [
            ["/hung.csv", "no response within 500 ms"],
            ["/silent.csv", "no data for 500 ms before the first byte of the body"],
            ["/stalled.csv", "no data for 500 ms in the middle of the body"],
            ["/stalled.csv.gz", "no data for 500 ms in the middle of the body"],
          ]
        ) {
          await t.step(`${path}: a server that stalls is an error after --http-timeout, exit 1`, async () => {
            const table = await freshTable();
            const before = server.requests.length;
            const result = await runCli(
              ["load", server.url(path), ...target(table), "--http-timeout", "500", ...logs],
              { deadlineMs: STALL_BOUND_MS },
            );
            assertEquals(result.code, 1, result.stderr);
            assertEquals(result.stderr.trim(), `error: ${server.url(path)}: ${what} (--http-timeout)`);
            assert(result.elapsedMs < STALL_BOUND_MS, `took ${result.elapsedMs} ms`);
            // One GET, nothing written to the input.
            assertEquals(server.requests.slice(before), [path]);
            assertEquals(server.methods.slice(before), ["GET"]);
          });
        }

        await t.step("--resume of a URL input is refused before anything is read", async () => {
          const before = server.requests.length;
          const table = await freshTable();
          const result = await runCli(["load", server.url("/data.csv"), ...target(table), "--resume", ...logs]);
          assertEquals(result.code, 2, result.stderr);
          assertMatch(result.stderr, /--resume cannot continue a URL input \(http:\/\/127\.0\.0\.1:[0-9]+\/data\.csv\)/);
          assertEquals(server.requests.length, before);
        });
      } finally {
        await server.close();
      }
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  },
});
