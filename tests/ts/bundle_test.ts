// What importing the driver loads (issue #17): the driver entrypoints bundle the driver's own
// modules and the WASM glue, no npm package (zod, commander and the CLI's other dependencies
// cost megabytes of every process's memory), and stay small.
// Run: deno test -A tests/ts/bundle_test.ts
import { assertExact } from "../exact.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
const ENTRYPOINTS = ["driver/deno.ts", "driver/node.ts", "driver/workerd.ts"];
// The driver's TypeScript and the wasm-bindgen glue bundle to about 220 KB today.
const MAX_BUNDLE_BYTES = 300_000;

async function bundle(entry: string): Promise<{ inputs: string[]; bytes: number }> {
  const metafile = await Deno.makeTempFile({ suffix: ".json" });
  const outfile = await Deno.makeTempFile({ suffix: ".js" });
  try {
    const { code, stderr } = await new Deno.Command(`${ROOT}node_modules/.bin/esbuild`, {
      args: [entry, "--bundle", "--format=esm", "--platform=neutral", "--external:node:*", "--external:cloudflare:sockets",
        "--external:*.wasm", `--metafile=${metafile}`, `--outfile=${outfile}`, "--log-level=error"],
      cwd: ROOT,
      stdout: "null",
    }).output();
    if (code !== 0) throw new Error(`esbuild ${entry}: ${new TextDecoder().decode(stderr)}`);
    const meta = JSON.parse(await Deno.readTextFile(metafile));
    return { inputs: Object.keys(meta.inputs), bytes: (await Deno.stat(outfile)).size };
  } finally {
    await Deno.remove(metafile);
    await Deno.remove(outfile);
  }
}

for (const entry of ENTRYPOINTS) {
  Deno.test(`${entry} bundles no npm package and stays under ${MAX_BUNDLE_BYTES} bytes`, async () => {
    const { inputs, bytes } = await bundle(entry);
    assertExact(inputs.filter((path) => path.includes("node_modules/")), []);
    assertExact(inputs.filter((path) => !path.startsWith("driver/")), []);
    if (bytes > MAX_BUNDLE_BYTES) throw new Error(`${entry} bundles to ${bytes} bytes, over ${MAX_BUNDLE_BYTES}`);
  });
}
