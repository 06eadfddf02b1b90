// Timing helpers shared by bench, count and unload.

/** Exact quantile of sorted values (for bench, which keeps every latency). */
export function sortedQuantile(sorted: Float64Array | number[], q: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
