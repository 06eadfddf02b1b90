/**
 * InputReader.bytes closed early (a `for await` that breaks, a header read that takes the
 * first chunk): the stream under it is cancelled, so a URL's body is not left half-read (nor
 * a compressed file's handle open). No Cassandra needed.
 */
import { assertEquals } from "./assert.ts";
import { expandInputs, InputReader } from "../../cli/load/input.ts";

// Random digits compress poorly: the .gz is several read chunks, so stopping after the first leaves most of it unread.
const CSV = "k,v\n" + Array.from({ length: 200000 }, (_, i) => `${i},${Math.random().toString().slice(2)}`).join("\n") + "\n";

async function gzipFile(path: string): Promise<void> {
  const stream = new Blob([CSV]).stream().pipeThrough(new CompressionStream("gzip"));
  await Deno.writeFile(path, new Uint8Array(await new Response(stream).arrayBuffer()));
}

Deno.test("InputReader.bytes read to its end still gives every byte of a .gz", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-input-reader-" });
  try {
    const path = `${dir}/data.csv.gz`;
    await gzipFile(path);
    const [input] = await expandInputs([path]);
    const chunks: Uint8Array[] = [];
    for await (const chunk of new InputReader(input).bytes(0)) chunks.push(chunk);
    assertEquals(new TextDecoder().decode(await new Blob(chunks as Uint8Array<ArrayBuffer>[]).bytes()), CSV);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("InputReader.bytes of a URL closed after its first chunk cancels the body: the server sees it", async () => {
  let cancelled = false;
  const abort = new AbortController();
  const block = new TextEncoder().encode("1,abc\n".repeat(10000));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, signal: abort.signal, onListen: () => {} }, () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull: (c) => c.enqueue(block), // an endless body
        cancel: () => void (cancelled = true),
      }),
    ));
  try {
    const [input] = await expandInputs([`http://127.0.0.1:${server.addr.port}/endless.csv`]);
    for await (const _ of new InputReader(input).bytes(0)) break;
    const until = Date.now() + 5000;
    while (!cancelled && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assertEquals(cancelled, true);
  } finally {
    abort.abort();
    await server.finished;
  }
});

Deno.test("a .json input of JSON Lines is JSON Lines, compressed or not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-json-kind-" });
  try {
    const lines = '{"k":1}\n{"k":2}\n';
    const array = ' [{"k":1},{"k":2}]\n';
    const gzip = (text: string) =>
      new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
    await Deno.writeTextFile(`${dir}/a_array.json`, array);
    await Deno.writeTextFile(`${dir}/b_lines.json`, "\uFEFF" + lines);
    await Deno.writeFile(`${dir}/c_lines.json.gz`, new Uint8Array(await gzip(lines)));
    await Deno.writeFile(`${dir}/d_array.json.gz`, new Uint8Array(await gzip(array)));
    await Deno.writeFile(`${dir}/e_lines.jsonl.gz`, new Uint8Array(await gzip(lines)));
    // A corrupt stream is left for the load to report: the name decides.
    await Deno.writeFile(`${dir}/f_corrupt.json.gz`, Uint8Array.of(0x1f, 0x8b, 8, 0, 1, 2, 3));
    const inputs = await expandInputs([`${dir}/*`]);
    assertEquals(inputs.map((input) => [input.path.slice(dir.length + 1), input.format]), [
      ["a_array.json", "json"],
      ["b_lines.json", "jsonl"],
      ["c_lines.json.gz", "jsonl"],
      ["d_array.json.gz", "json"],
      ["e_lines.jsonl.gz", "jsonl"],
      ["f_corrupt.json.gz", "json"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
