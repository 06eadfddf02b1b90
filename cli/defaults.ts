// Defaults shared by the help texts (main.ts) and the commands, which main.ts imports only
// when they run.

export const DEFAULT_PAGE_SIZE = 5000;

export const LOAD_DEFAULTS = {
  maxConcurrency: 256,
  initialConcurrency: 32,
  maxRetries: 3,
  badDir: "./cqlwire-logs",
  checkpointSeconds: 5,
  progressSeconds: 5,
} as const;

export const UNLOAD_DEFAULT_CONCURRENCY = 4;
export const COUNT_DEFAULT_CONCURRENCY = 4;
