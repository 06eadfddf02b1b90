// The hostile-server suite on Node: vitest on the built bundle (dist/node.js), the same
// cases as hostile_test.ts on Deno. `--expose-gc` so memory is measured after a collection.
import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["tests/hostile/node_runner.vitest.ts"],
    environment: "node",
    pool: "forks",
    poolOptions: { forks: { singleFork: true, execArgv: ["--expose-gc"] } },
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ["verbose"],
  },
});
