// The shared measuring loop of the JavaScript bench clients (cqlwire on Deno and Node, the
// DataStax driver on Node). Every client in bench/ takes the same arguments and prints the
// same JSON line; see bench/README.md.
import { env, listDirSync, memoryUsage, processCpuMicros, readTextSync } from "./runtime.mjs";

export const INSERT_CQL = "INSERT INTO bench.kv (k, v) VALUES (?, ?)";
export const SELECT_CQL = "SELECT k, v FROM bench.kv WHERE k = ?";
export const VALUE_BYTES = 32;

export function parseArgs(argv) {
  if (argv.length !== 5) {
    throw new Error(`usage: HOST PORT N CONCURRENCY insert|select (got ${JSON.stringify(argv)})`);
  }
  const [host, port, n, concurrency, mode] = argv;
  if (mode !== "insert" && mode !== "select") throw new Error(`mode must be insert or select, not ${mode}`);
  return { host, port: Number(port), n: Number(n), concurrency: Number(concurrency), mode };
}

/** A cqlwire Client's options in every JavaScript bench program: one connection, protocol v4. */
export function cqlwireOptions(args) {
  return {
    contactPoints: [`${args.host}:${args.port}`],
    localDataCenter: "datacenter1",
    protocolVersion: 4,
    pooling: { coreConnectionsPerHost: 1 },
  };
}

/**
 * user + sys CPU time of the calling (main) thread in µs, from /proc (10 ms ticks), or null
 * where there is no /proc; the rest of the process's CPU is its background threads'.
 */
function threadCpuMicros() {
  try {
    return parseTaskStat(readTextSync("/proc/thread-self/stat")).micros;
  } catch {
    return null;
  }
}

/** A /proc task stat line's thread id, name and user + sys CPU in µs (10 ms ticks). */
function parseTaskStat(stat) {
  const end = stat.lastIndexOf(")");
  const fields = stat.slice(end + 2).split(" ");
  return {
    tid: stat.slice(0, stat.indexOf(" ")),
    name: stat.slice(stat.indexOf("(") + 1, end),
    micros: (Number(fields[11]) + Number(fields[12])) * 10_000,
  };
}

/**
 * user + sys CPU time in µs of each of this process's threads, summed by the kernel's thread name
 * (15 characters: "V8 DefaultWorke" is V8's platform workers, which run the optimizing
 * compilers' background jobs and concurrent marking; "tokio-runtime-w" Deno's blocking pool),
 * the calling thread as "main", from /proc; null where there is no /proc. It says which threads
 * the process's CPU beyond the main thread's is.
 */
function cpuMicrosByThreadName() {
  try {
    const self = parseTaskStat(readTextSync("/proc/thread-self/stat")).tid;
    const byName = new Map();
    for (const tid of listDirSync("/proc/self/task")) {
      const { name, micros } = taskCpu(tid);
      const key = tid === self ? "main" : name;
      byName.set(key, (byName.get(key) ?? 0) + micros);
    }
    return byName;
  } catch {
    return null;
  }
}

/** One thread's name and CPU in µs; a thread that ended since the listing counts as none. */
function taskCpu(tid) {
  try {
    return parseTaskStat(readTextSync(`/proc/self/task/${tid}/stat`));
  } catch {
    return { name: "(ended)", micros: 0 };
  }
}

/** µs per op of each thread name over the loop (those that ran at all), or null. */
function perOpByThreadName(before, after, n) {
  if (before === null || after === null) return null;
  const out = {};
  for (const [name, micros] of after) {
    const delta = micros - (before.get(name) ?? 0);
    if (delta > 0) out[name] = delta / n;
  }
  return out;
}

/**
 * With BENCH_PROFILE=PATH (bench/profile's breakdown), the measured loop runs under the V8
 * CPU profiler of the runtime's own inspector (the same on Deno and Node), which writes
 * PATH.cpuprofile; the result line then also says the main thread's CPU and where memory is.
 */
async function startProfile() {
  const path = env("BENCH_PROFILE");
  if (!path) return null;
  // Only the profile's runs load these (and Deno's Node layer with them).
  const { Session } = await import("node:inspector");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  const post = (method, params = {}) =>
    new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 200 });
  await post("Profiler.start");
  return async (memory) => {
    const { profile } = await post("Profiler.stop");
    writeFileSync(`${path}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
    const usage = memoryUsage();
    const mb = (bytes) => bytes / 2 ** 20;
    return {
      rss_now_mb: mb(usage.rss),
      heap_used_mb: mb(usage.heapUsed),
      heap_total_mb: mb(usage.heapTotal),
      external_mb: mb(usage.external),
      ...(memory ? { wasm_memory_mb: mb(memory.wasmMemoryBytes), core_buffers_mb: mb(memory.coreBufferBytes) } : {}),
    };
  };
}

/**
 * Runs `op(i)` for i in [0, n) with `concurrency` calls in flight, after a warm-up of n/10
 * calls that is not measured, and returns the result line. `memoryStats`, when given, says
 * where the client's memory is (cqlwire's `getMemoryStats`), for the profile's line.
 */
export async function measure(driver, args, op, memoryStats) {
  const { n, concurrency, mode } = args;
  const warmup = Math.max(1, Math.floor(n / 10));
  await runLoop(warmup, concurrency, (i) => op(n + i), null);
  const latencies = new Float64Array(n);
  const stopProfile = await startProfile();
  const threadsBefore = cpuMicrosByThreadName();
  const threadBefore = threadCpuMicros();
  const cpuBefore = processCpuMicros();
  const started = performance.now();
  const errors = await runLoop(n, concurrency, op, latencies);
  const elapsedMs = performance.now() - started;
  const cpuMicros = processCpuMicros() - cpuBefore;
  const threadAfter = threadCpuMicros();
  const threadsAfter = cpuMicrosByThreadName();
  const profiled = stopProfile ? await stopProfile(memoryStats?.()) : {};
  latencies.sort();
  const pick = (q) => latencies[Math.min(n - 1, Math.floor(q * n))] * 1000;
  return {
    ...profiled,
    driver,
    mode,
    n,
    concurrency,
    elapsed_s: elapsedMs / 1000,
    ops_per_s: n / (elapsedMs / 1000),
    p50_us: pick(0.5),
    p99_us: pick(0.99),
    cpu_us_per_op: cpuMicros / n,
    main_thread_cpu_us_per_op: threadBefore === null ? null : (threadAfter - threadBefore) / n,
    thread_cpu_us_per_op: perOpByThreadName(threadsBefore, threadsAfter, n),
    errors,
  };
}

async function runLoop(n, concurrency, op, latencies) {
  let next = 0;
  let errors = 0;
  let firstError = null;
  async function worker() {
    while (next < n) {
      const i = next++;
      const t0 = performance.now();
      try {
        await op(i);
      } catch (e) {
        errors++;
        firstError ??= e;
      }
      if (latencies) latencies[i] = performance.now() - t0;
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  if (firstError) console.error(`bench: ${errors} errors, first: ${firstError?.stack ?? firstError}`);
  return errors;
}

export function checkRow(row, k) {
  const v = row?.v;
  if (!v || v.length !== VALUE_BYTES) throw new Error(`bad row for k=${k}: ${JSON.stringify(row)}`);
}

/**
 * The measured operation of the client contract: a prepared INSERT, or a SELECT whose row is
 * checked. Both return the driver's promise with at most one reaction on it: the SELECT's
 * check is a `.then`, not an `async` function awaiting the promise (which costs every
 * JavaScript client one more promise and microtask hop per request, about 400 bytes and
 * 0.4 µs at 1024 in flight, so SELECT was measured with a loop dearer than INSERT's).
 */
export function contractOp(client, mode, value) {
  const prepare = { prepare: true };
  return mode === "insert"
    ? (i) => client.execute(INSERT_CQL, [BigInt(i), value], prepare)
    : (i) => client.execute(SELECT_CQL, [BigInt(i)], prepare).then((rs) => checkRow(rs.rows[0], i));
}
