// What importing the driver costs, by part (bench/MEMORY.md): prints this process's max RSS
// (VmHWM, MB) after loading TARGET, one of
//   none            nothing (the runtime alone)
//   wasm            only compiles the driver's WASM module (no JavaScript of the driver)
//   driver/deno.ts  the driver from its TypeScript sources (Deno)
//   dist/deno.js    the built bundle (Deno), dist/node.js (Node)
// e.g. `deno run -A bench/memory/import_split.mjs dist/deno.js`, with `--v8-flags=...` (Deno)
// or V8 flags before the script (Node) to see what a compiler tier costs. Linux only.
// CQLWIRE_ROOT picks the tree measured.
import { args, env, readTextSync } from "../clients/runtime.mjs";

const root = env("CQLWIRE_ROOT") ?? new URL("../../", import.meta.url).pathname;
const target = args[0] ?? "none";
if (target === "wasm") {
  const file = `${root}/driver/wasm/pkg/cqlwire_wasm_bg.wasm`;
  const bytes = globalThis.Deno ? Deno.readFileSync(file) : globalThis.process.getBuiltinModule("node:fs").readFileSync(file);
  globalThis.module = new WebAssembly.Module(bytes);
} else if (target !== "none") {
  globalThis.driver = await import(`${root}/${target}`);
}
const kb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readTextSync("/proc/self/status"))?.[1]);
console.log(JSON.stringify({ target, peak_rss_mb: Math.round(kb / 102.4) / 10 }));
