// Where a cqlwire process's memory outside V8's heap is (issue #17): RSS by kind of mapping
// from /proc/self/smaps, at each step of the driver's import and, given a null server, at the
// end of the same measured loop as probe.mjs. The kinds are what a runtime's native memory is
// made of: the runtime binary's code pages it has touched (the TypeScript stripper, the WASM
// decoder and compilers, TurboFan), malloc's main heap and its other threads' arenas (compile
// zones, GC workers), the smaller anonymous pages (V8's heap pages among them) and JIT code.
//
//   deno run -A bench/memory/native.mjs [HOST PORT N CONCURRENCY insert|select]
//   node bench/memory/native.mjs [HOST PORT N CONCURRENCY insert|select]
//   deno run -A bench/memory/native.mjs wasm       only compiles the WASM module, no driver
//
// Linux only. A diagnostic: V8 flags such as --no-wasm-tier-up or --single-threaded go on the
// command line to see what a part costs; the driver and the bench set none of them.
// CQLWIRE_ROOT picks the tree whose driver is measured.
import { contractOp, cqlwireOptions, measure, parseArgs, VALUE_BYTES } from "../clients/harness.mjs";
import { args as argv, env, memoryUsage, readTextSync } from "../clients/runtime.mjs";

const onDeno = typeof Deno !== "undefined";
const root = env("CQLWIRE_ROOT") ?? new URL("../../", import.meta.url).pathname;
const mb = (kb) => Math.round(kb / 102.4) / 10;

/** RSS in MB by kind of mapping, and the process's VmRSS/VmHWM. */
function snapshot(step) {
  const kinds = {};
  let kind = null;
  for (const line of readTextSync("/proc/self/smaps").split("\n")) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (range) kind = kindOf(range[3], range[4], (parseInt(range[2], 16) - parseInt(range[1], 16)) / 1024);
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && kind) kinds[kind] = (kinds[kind] ?? 0) + Number(rss[1]);
  }
  const status = readTextSync("/proc/self/status");
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  const byKind = Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, mb(v)]));
  return { step, rss_mb: mb(field("VmRSS")), peak_rss_mb: mb(field("VmHWM")), ...byKind };
}

/** malloc gives each thread but the main one an arena in its own 64 MB reservation. */
function kindOf(perms, path, sizeKb) {
  const binary = onDeno ? Deno.execPath() : globalThis.process.execPath;
  if (path === binary) return perms.includes("x") ? "runtime_code_mb" : "runtime_data_mb";
  if (path === "[heap]") return "malloc_main_mb";
  if (path.startsWith("/")) return "other_files_mb";
  if (path.startsWith("[stack")) return "stacks_mb";
  if (perms.includes("x")) return "jit_code_mb";
  return sizeKb >= 1024 ? "anon_large_mb" : "anon_small_mb";
}

// Warmed up first: the regular expressions' own compilation to machine code (V8 tiers them
// up after a few runs) would otherwise land in the first step's runtime code pages.
for (let i = 0; i < 3; i++) snapshot("warm-up");
const steps = [snapshot("start")];
if (argv[0] === "wasm") {
  // The module alone, as the entrypoints compile it, without the driver's JavaScript.
  const file = `${root}/driver/wasm/pkg/cqlwire_wasm_bg.wasm`;
  const bytes = onDeno ? Deno.readFileSync(file) : globalThis.process.getBuiltinModule("node:fs").readFileSync(file);
  globalThis.module = new WebAssembly.Module(bytes);
  steps.push(snapshot("wasm module compiled"));
} else {
  globalThis.driver = await import(`${root}/${onDeno ? "driver/deno.ts" : "dist/node.js"}`);
  steps.push(snapshot("driver imported"));
}
if (argv.length >= 5) {
  const args = parseArgs(argv);
  const client = new globalThis.driver.Client(cqlwireOptions(args));
  await client.connect();
  const op = contractOp(client, args.mode, new Uint8Array(VALUE_BYTES).fill(0xab));
  await measure(onDeno ? "cqlwire-deno" : "cqlwire-node", args, op, null);
  const { heapTotal, external } = memoryUsage();
  steps.push({ ...snapshot(`${args.mode} loop done`), v8_heap_mb: mb(heapTotal / 1024), external_mb: mb(external / 1024) });
  await client.shutdown();
}
for (const step of steps) console.log(JSON.stringify(step));
