// A client without TLS never loads `node:tls` (1.5-3 MB of RSS on Node 20, issue #17): not at
// import, and not when it connects in plain text. Each case runs in a fresh process, since a
// module once loaded stays in `process.moduleLoadList`.
import { deepEqual } from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "vitest";

const HOSTS = (process.env.CQLWIRE_HOSTS ?? "127.0.0.1:9042").split(",");
const dist = (file) => fileURLToPath(new URL(`../../dist/${file}`, import.meta.url));

/** The TLS modules a fresh Node process has loaded after running `body` (an async function body). */
function tlsModulesAfter(body) {
  const program = `(async () => { ${body} })().then(() => {
    const tls = process.moduleLoadList.filter((m) => /^NativeModule (tls|_tls_wrap)$/.test(m));
    console.log(JSON.stringify(tls));
  });`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", program], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").at(-1));
}

test("importing the ESM bundle loads no node:tls", () => {
  deepEqual(tlsModulesAfter(`await import(${JSON.stringify(dist("node.js"))});`), []);
});

test("requiring the CommonJS bundle loads no node:tls", () => {
  const body = `const { createRequire } = await import("node:module");
    createRequire(import.meta.url)(${JSON.stringify(dist("node.cjs"))});`;
  deepEqual(tlsModulesAfter(body), []);
});

test("a plain-text query loads no node:tls; a TLS connection attempt does", () => {
  const connect = (tls) => `const { Client } = await import(${JSON.stringify(dist("node.js"))});
    const client = new Client({ contactPoints: ${JSON.stringify(HOSTS)}, localDataCenter: "datacenter1" ${tls} });
    try { await client.execute("SELECT release_version FROM system.local"); } catch {} finally { await client.shutdown(); }`;
  deepEqual(tlsModulesAfter(connect("")), []);
  // Cassandra here speaks plain text: the handshake fails, but the module was needed to try.
  deepEqual(tlsModulesAfter(connect(`, tls: {}, socketOptions: { connectTimeout: 2000 }`)), ["NativeModule _tls_wrap", "NativeModule tls"]);
});
