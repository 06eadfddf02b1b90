// What the bench programs need from their runtime, without loading Deno's Node compatibility
// layer: a `node:` import (or touching the `process` global) costs a Deno process 5–12 MB of
// RSS that a Deno user of the driver never pays, and the clients' max RSS is a target of
// issue #17. On Node these are the usual `process` calls.
const deno = globalThis.Deno;

/** The program's arguments after the script. */
export const args = deno ? deno.args : globalThis.process.argv.slice(2);

/** An environment variable, or undefined. */
export const env = (name) => (deno ? deno.env.get(name) : globalThis.process.env[name]);

/** user + sys CPU time of this process, all threads, in µs (getrusage). */
export function processCpuMicros() {
  const { user, system } = deno ? deno.cpuUsage() : globalThis.process.cpuUsage();
  return user + system;
}

/** rss, heapTotal, heapUsed, external (and arrayBuffers on Node), in bytes. */
export const memoryUsage = () => (deno ? deno.memoryUsage() : globalThis.process.memoryUsage());

/** A text file's contents (a /proc file here). */
export async function readText(path) {
  if (deno) return deno.readTextFile(path);
  const { readFile } = await import("node:fs/promises");
  return readFile(path, "utf8");
}

/**
 * A text file's contents, read by the calling thread itself: `/proc/thread-self` is the thread
 * that opens it, and the async reads above run on a pool thread (Deno's blocking pool, libuv's).
 */
export function readTextSync(path) {
  return deno ? deno.readTextFileSync(path) : globalThis.process.getBuiltinModule("node:fs").readFileSync(path, "utf8");
}

/** The names in a directory (a /proc one here). */
export function listDirSync(path) {
  return deno ? Array.from(deno.readDirSync(path), (entry) => entry.name) : globalThis.process.getBuiltinModule("node:fs").readdirSync(path);
}

/** The peak RSS of this process so far in MB (VmHWM), or null where there is no /proc. */
export async function peakRssMb() {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(await readText("/proc/self/status"))?.[1];
    return kb === undefined ? null : Math.round((Number(kb) / 1024) * 10) / 10;
  } catch {
    return null;
  }
}
