// A process's memory by kind, in MB, for bench/memory's JSON lines (probe.mjs, floor.mjs).
import process from "node:process";
import v8 from "node:v8";

/** `client` (a cqlwire Client or null) adds its WASM linear memory and core buffers. */
export function memory(client) {
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s]));
  const mb = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
  const stats = client?.getMemoryStats();
  return {
    rss_now_mb: mb(usage.rss),
    heap_total_mb: mb(usage.heapTotal),
    heap_used_mb: mb(usage.heapUsed),
    new_space_mb: mb(spaces.new_space?.space_size ?? 0),
    old_space_used_mb: mb(spaces.old_space?.space_used_size ?? 0),
    code_mb: mb((spaces.code_space?.space_size ?? 0) + (spaces.code_large_object_space?.space_size ?? 0)),
    external_mb: mb(usage.external),
    array_buffers_mb: mb(usage.arrayBuffers ?? 0),
    wasm_memory_mb: stats ? mb(stats.wasmMemoryBytes) : null,
    core_buffers_mb: stats ? mb(stats.coreBufferBytes) : null,
  };
}
