// startScyllaServer's `spawn` for Node (node:child_process): used by node_run.mjs and by
// the workerd runner, which starts the server for the Worker.
import { spawn as spawnChild } from "node:child_process";

export function spawn(path, args, onStdout) {
  const child = spawnChild(path, args, { stdio: ["ignore", "pipe", "inherit"] });
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", onStdout);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    exitCode: () => child.exitCode,
    kill: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
