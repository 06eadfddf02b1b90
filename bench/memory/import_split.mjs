// What importing the driver costs, by part (bench/MEMORY.md): prints this process's max RSS
// (VmHWM, MB) after loading TARGET, one of
//   none            nothing (the runtime alone)
//   wasm            only compiles the driver's WASM module (no JavaScript of the driver)
//   wasm-read       only reads the module's file (the JavaScript copy of its bytes)
//   wasm-tiny       compiles a one-function module (the engine's own first-module cost)
//   wasm-multi      compiles a one-function module whose export returns two values: Node 20
//                   compiles a TurboFan JS-to-WASM wrapper for it (TurboFan's code pages)
//   PREFIX+TARGET   e.g. `wasm-tiny+wasm`: both, in that order
//   a second argument `hot` first runs a hot JavaScript loop until TurboFan optimises it, so
//   what TurboFan's own code costs is paid before TARGET (bench/MEMORY.md section 5)
//   driver/deno.ts  the driver from its TypeScript sources (Deno)
//   dist/deno.js    the built bundle (Deno), dist/node.js (Node)
// e.g. `deno run -A bench/memory/import_split.mjs dist/deno.js`, with `--v8-flags=...` (Deno)
// or V8 flags before the script (Node) to see what a compiler tier costs. Linux only.
// CQLWIRE_ROOT picks the tree measured.
import { args, env, readTextSync } from "../clients/runtime.mjs";

const root = env("CQLWIRE_ROOT") ?? new URL("../../", import.meta.url).pathname;
const target = args[0] ?? "none";
const readWasm = () => {
  const file = `${root}/driver/wasm/pkg/cqlwire_wasm_bg.wasm`;
  return globalThis.Deno
    ? Deno.readFileSync(file)
    : globalThis.process.getBuiltinModule("node:fs").readFileSync(file);
};
// (func (export "f") (result i32) i32.const 0), and the same returning (i32, i32).
const fromHex = (hex) =>
  Uint8Array.from(hex.match(/../g), (byte) => parseInt(byte, 16));
const tiny = fromHex(
  "0061736d010000000105016000017f03020100070501016600000a0601040041000b",
);
const multi = fromHex(
  "0061736d010000000106016000027f7f03020100070501016600000a08010600410041000b",
);
const kept = (globalThis.kept = []);
if (args[1] === "hot") {
  const step = (x) => (x * 2 + 1) & 0xffff;
  let sum = 0;
  for (let i = 0; i < 3e6; i++) sum = step(sum);
  kept.push(sum);
}
for (const part of target.split("+")) {
  if (part === "wasm") kept.push(new WebAssembly.Module(readWasm()));
  else if (part === "wasm-read") kept.push(readWasm());
  else if (part === "wasm-tiny") {
    kept.push(new WebAssembly.Module(tiny));
  } else if (part === "wasm-multi") {
    kept.push(new WebAssembly.Module(multi));
  } else if (part !== "none") kept.push(await import(`${root}/${part}`));
}
const kb = Number(
  /^VmHWM:\s+(\d+) kB$/m.exec(readTextSync("/proc/self/status"))?.[1],
);
console.log(
  JSON.stringify({ target, peak_rss_mb: Math.round(kb / 102.4) / 10 }),
);
