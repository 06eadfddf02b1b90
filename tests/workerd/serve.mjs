/**
 * `workerd serve CONFIG` on a port the kernel picks, as the Worker tests run it: the port is
 * read from the control messages workerd writes to fd 3, its output is kept for a failure's
 * report, and `stop()` ends it (SIGTERM, then SIGKILL after 5 s).
 */
import { spawn } from "node:child_process";

export async function serveWorkerd(bin, config, timeoutMs) {
  const workerd = spawn(bin, ["serve", config, "--socket-addr", "http=127.0.0.1:0", "--control-fd", "3"], {
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  let output = "";
  workerd.stdout.on("data", (d) => (output += d));
  workerd.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => workerd.once("exit", (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    workerd.kill("SIGTERM");
    let grace;
    const stopped = await Promise.race([exited, new Promise((r) => (grace = setTimeout(() => r(null), 5000)))]);
    clearTimeout(grace);
    if (!stopped) workerd.kill("SIGKILL");
    return stopped !== null;
  };
  const output_ = () => output;
  try {
    return { port: await listening(workerd, exited, timeoutMs), output: output_, stop };
  } catch (e) {
    await stop();
    e.message += `\n${output.slice(-3000)}`;
    throw e;
  }
}

function listening(workerd, exited, timeoutMs) {
  return new Promise((resolve, reject) => {
    let control = "";
    const timer = setTimeout(() => reject(new Error(`workerd did not listen within ${timeoutMs} ms`)), timeoutMs);
    workerd.stdio[3].on("data", (d) => {
      control += d;
      for (const line of control.split("\n")) {
        try {
          const msg = JSON.parse(line);
          if (msg.event === "listen" && msg.socket === "http") {
            clearTimeout(timer);
            resolve(msg.port);
          }
        } catch {
          // A partial line: wait for the rest.
        }
      }
    });
    exited.then(({ code, signal }) => reject(new Error(`workerd exited (code ${code}, signal ${signal}) before listening`)));
  });
}
