/**
 * Runs cqlwire's side of the differential test inside workerd (workerd.capnp serves
 * worker.mjs): one request to the Worker, then workerd is stopped. Resolves to
 * `{ scenario: description }`, or to `{ failure }` saying why there is none.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { serveWorkerd } from "../../workerd/serve.mjs";

const START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 240_000;

export async function runInWorkerd({ root, host, ks, only }) {
  const bin = path.join(root, "node_modules/.bin/workerd");
  if (!existsSync(bin)) return { failure: `workerd is missing (${bin}): run 'npm ci' (scripts/bootstrap does)` };
  let served = null;
  try {
    served = await serveWorkerd(bin, path.join(root, "tests/compat/differential/workerd.capnp"), START_TIMEOUT_MS);
    const url = `http://127.0.0.1:${served.port}/?host=${encodeURIComponent(host)}&ks=${encodeURIComponent(ks)}&only=${encodeURIComponent(only ?? "")}`;
    const text = await (await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).text();
    try {
      return JSON.parse(text);
    } catch {
      return { failure: `the Worker did not answer JSON: ${text.slice(0, 2000)}\n${served.output().slice(-3000)}` };
    }
  } catch (e) {
    return { failure: `workerd: ${e.message}` };
  } finally {
    await served?.stop();
  }
}
