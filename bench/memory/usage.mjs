// A process's memory by kind, in MB, for bench/memory's JSON lines (probe.mjs, floor.mjs).
import { memoryUsage, peakRssMb } from "../clients/runtime.mjs";

const mb = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;

/**
 * `client` (a cqlwire Client or null) adds its WASM linear memory and core buffers. The peak
 * RSS is read first: the V8 heap-space breakdown needs `node:v8`, which on Deno loads the
 * Node compatibility layer (about 5 MB) that the measured loop never had.
 */
export async function memory(client) {
  const peak_rss_mb = await peakRssMb();
  const usage = memoryUsage();
  const stats = client?.getMemoryStats();
  const { default: v8 } = await import("node:v8");
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s]));
  return {
    peak_rss_mb,
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
