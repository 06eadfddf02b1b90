/**
 * The fault proxy as its own process, driven over HTTP (see `serveControl`):
 *   deno run -A tests/proxy/main.ts --target 127.0.0.1:9042 [--listen PORT] [--control PORT]
 * Prints one JSON line, {"port": ..., "controlPort": ...}, once both listen; runs until
 * SIGTERM/SIGINT or until its stdin closes (so it never outlives the test that started it).
 */
import { FaultProxy, serveControl } from "./proxy.ts";

function flag(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const target = flag("--target") ?? "127.0.0.1:9042";
const colon = target.lastIndexOf(":");
const proxy = await FaultProxy.start({
  target: { host: target.slice(0, colon), port: Number(target.slice(colon + 1)) },
  listenPort: Number(flag("--listen") ?? 0),
});
const control = serveControl(proxy, Number(flag("--control") ?? 0));
console.log(JSON.stringify({ port: proxy.port, controlPort: control.port }));

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await proxy.close();
  await control.shutdown();
  Deno.exit(0);
}
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
(async () => {
  const buf = new Uint8Array(64);
  try {
    while ((await Deno.stdin.read(buf)) !== null) { /* only waiting for EOF */ }
  } catch {
    // stdin unavailable: signals still stop us.
    return;
  }
  await stop();
})();
