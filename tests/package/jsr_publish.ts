/**
 * The JSR package as a Deno user gets it (run by jsr_publish.sh with a temp dir and a host):
 * 1. `deno publish --dry-run` succeeds, warns about nothing, and lists exactly the modules the
 *    exports load (`deno info` of each) plus README.md, LICENSE and deno.json.
 * 2. Those files, with bare specifiers rewritten through deno.json's "imports" as `deno publish`
 *    does, are served over HTTP by a local server, so the package is a remote module as from
 *    https://jsr.io; its npm dependencies come from the same server acting as the npm registry
 *    (built from node_modules, so the run needs no network).
 * 3. A fresh Deno (no config, import map, lock file or node_modules; a temp DENO_DIR) imports
 *    each export by URL with no permission but the Cassandra socket and the package host, and
 *    queries Cassandra. Deno 2.5 (LTS, node_modules/deno-2.5) does too, with the one permission
 *    more it needs there: --allow-net of the package host, as it fetches the .wasm.
 */
const [work, host] = Deno.args;
const root = Deno.cwd();
const deno = Deno.execPath();
const config = JSON.parse(await Deno.readTextFile(`${root}/deno.json`));
const exports: Record<string, string> = config.exports;
const importMap: Record<string, string> = config.imports ?? {};

let failures = 0;
const pass = (what: string) => console.log(`ok    ${what}`);
const fail = (what: string) => {
  console.log(`FAIL  ${what}`);
  failures++;
};

async function run(args: string[], options: Deno.CommandOptions = {}, bin = deno) {
  const env = { NO_COLOR: "1", ...options.env };
  const out = await new Deno.Command(bin, { args, stdin: "null", ...options, env }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

// --- 1. the dry run and its file list ---------------------------------------------------------
const started = Date.now();
const publish = await run(["publish", "--dry-run", "--allow-dirty"]);
const listed = [...publish.text.matchAll(/^\s+file:\/\/(\S+) \(/gm)].map((m) => m[1].slice(root.length + 1)).sort();
if (publish.code === 0 && publish.text.includes("Success Dry run complete")) {
  pass(`deno publish --dry-run: ${listed.length} files (${Date.now() - started} ms)`);
} else {
  fail(`deno publish --dry-run exited ${publish.code}:\n${publish.text}`);
}
const warnings = publish.text.split("\n").filter((l) => /^warning/i.test(l));
if (warnings.length === 0) pass("no warnings");
else fail(`${warnings.length} warnings: ${warnings.join("; ")}\n${publish.text}`);

/** The package's own files a Deno entry loads: its module graph without node_modules (npm deps). */
async function graphFiles(entry: string): Promise<string[]> {
  const info = await run(["info", "--json", entry]);
  if (info.code !== 0) throw new Error(`deno info ${entry}: ${info.text}`);
  const prefix = `file://${root}/`;
  return JSON.parse(info.text).modules.map((m: { specifier: string }) => m.specifier)
    .filter((s: string) => s.startsWith(prefix) && !s.startsWith(`${prefix}node_modules/`))
    .map((s: string) => s.slice(prefix.length));
}

const expected = new Set(["README.md", "LICENSE", "deno.json"]);
for (const entry of Object.values(exports)) for (const f of await graphFiles(entry)) expected.add(f);
const want = [...expected].sort();
const missing = want.filter((f) => !listed.includes(f));
const extra = listed.filter((f) => !expected.has(f));
if (missing.length === 0 && extra.length === 0) pass(`the file list is exactly the exports' module graphs + README.md, LICENSE, deno.json`);
else fail(`file list differs: missing [${missing.join(", ")}], not needed [${extra.join(", ")}]`);
for (const f of ["driver/wasm/pkg/cqlwire_wasm.js", "driver/wasm/pkg/cqlwire_wasm_bg.wasm", "LICENSE"]) {
  if (listed.includes(f)) pass(`the package holds ${f}`);
  else fail(`the package lacks ${f}`);
}
if (failures > 0 || listed.length === 0) {
  console.log(`jsr_publish: ${failures} check(s) failed`);
  Deno.exit(1);
}

// --- 2. the package as JSR serves it ----------------------------------------------------------
const pkg = `${work}/pkg`;
const npmDeps = new Map<string, string>();
/** What `deno publish` does to a module: bare specifiers become their import map targets. */
function rewriteBare(source: string): string {
  return source.replace(/(\bfrom\s*|\bimport\s*\(\s*)"([^".\/][^"]*)"/g, (whole, lead, spec) => {
    const target = importMap[spec];
    if (target === undefined) return whole;
    const npm = /^npm:(@?[^@]+)@(.+)$/.exec(target);
    if (npm) npmDeps.set(npm[1], npm[2]);
    return `${lead}"${target}"`;
  });
}
for (const f of listed) {
  await Deno.mkdir(`${pkg}/${f.slice(0, f.lastIndexOf("/") + 1)}`, { recursive: true });
  if (/\.(ts|js)$/.test(f)) await Deno.writeTextFile(`${pkg}/${f}`, rewriteBare(await Deno.readTextFile(f)));
  else await Deno.copyFile(f, `${pkg}/${f}`);
}

/** The npm registry's answer for each npm dependency, from the copy npm ci put in node_modules. */
async function npmPackage(name: string, version: string, base: string) {
  const manifest = JSON.parse(await Deno.readTextFile(`${root}/node_modules/${name}/package.json`));
  if (manifest.version !== version) throw new Error(`node_modules/${name} is ${manifest.version}, deno.json wants ${version}`);
  const tgz = `${work}/${name.replace("/", "+")}.tgz`;
  const tar = await new Deno.Command("tar", {
    args: ["-czf", tgz, "-C", `${root}/node_modules`, `--transform=s,^${name},package,`, name],
  }).output();
  if (!tar.success) throw new Error(`tar ${name}: ${new TextDecoder().decode(tar.stderr)}`);
  const bytes = await Deno.readFile(tgz);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", bytes));
  const integrity = `sha512-${btoa(String.fromCharCode(...digest))}`;
  const dist = { tarball: `${base}npm/${name}/-/package.tgz`, integrity };
  const packument = { name, "dist-tags": { latest: version }, versions: { [version]: { ...manifest, dist } } };
  return { packument: JSON.stringify(packument), tarball: bytes };
}

const types: Record<string, string> = { ts: "application/typescript", js: "text/javascript", wasm: "application/wasm", json: "application/json", md: "text/markdown" };
const npm = new Map<string, { packument: string; tarball: Uint8Array; served: number }>();
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  const path = decodeURIComponent(new URL(req.url).pathname);
  const npmRequest = /^\/npm\/(.+?)(\/-\/package\.tgz)?$/.exec(path);
  if (npmRequest) {
    const dep = npm.get(npmRequest[1]);
    if (!dep) return new Response("not found", { status: 404 });
    if (npmRequest[2]) dep.served++;
    if (npmRequest[2]) return new Response(dep.tarball, { headers: { "content-type": "application/octet-stream" } });
    return new Response(dep.packument, { headers: { "content-type": "application/json" } });
  }
  if (!listed.includes(path.slice(1))) return new Response("not found", { status: 404 });
  const type = types[path.slice(path.lastIndexOf(".") + 1)] ?? "application/octet-stream";
  return new Response(await Deno.readFile(`${pkg}${path}`), { headers: { "content-type": type } });
});
const base = `http://127.0.0.1:${server.addr.port}/`;
for (const [name, version] of npmDeps) npm.set(name, { ...await npmPackage(name, version, base), served: 0 });

// --- 3. a fresh Deno imports each export remotely and queries Cassandra -----------------------
const consumers: Record<string, (url: string) => string> = {
  ".": (url) => `
import { Client, ResponseError, types } from "${url}";
const client = new Client({ contactPoints: ["${host}"], localDataCenter: "datacenter1" });
try {
  const rs = await client.execute("SELECT release_version FROM system.local WHERE key = ?", ["local"], { prepare: true, consistency: types.consistencies.one });
  const release = String(rs.first()?.release_version);
  if (!/^5\\.0\\./.test(release)) throw new Error("unexpected release " + release);
  const e = await client.execute("SELEC 1").catch((x) => x);
  if (!(e instanceof ResponseError) || e.code !== 0x2000) throw new Error("expected a syntax ResponseError, got " + e);
  console.log(release);
} finally {
  await client.shutdown();
}`,
  "./compat": (url) => `
import * as cassandra from "${url}";
const client = new cassandra.Client({ contactPoints: ["${host}"], localDataCenter: "datacenter1" });
try {
  const rs = await client.execute("SELECT release_version, writetime(cluster_name) AS wt FROM system.local WHERE key = ?", ["local"], { prepare: true });
  const row = rs.first();
  if (row === null) throw new Error("system.local has no row");
  if (!(row.wt instanceof cassandra.types.Long) || row.wt.lessThanOrEqual(0)) throw new Error("expected a positive Long writetime, got " + row.wt);
  if (!/^5\\.0\\./.test(String(row.release_version))) throw new Error("unexpected release " + row.release_version);
  // DataStax's two statics of Long, typed (this script is type-checked): a CQL bigint's 8 bytes.
  const long = cassandra.types.Long.fromBuffer(new Uint8Array([0x80, 0, 0, 0, 0, 0, 0, 1]));
  const bytes: Uint8Array = cassandra.types.Long.toBuffer(long.add(1));
  if (long.toString() !== "-9223372036854775807" || bytes.join() !== "128,0,0,0,0,0,0,2") throw new Error("Long buffers: " + long + " " + bytes);
  console.log(row.release_version);
} finally {
  await client.shutdown();
}`,
};

const app = `${work}/app`;
await Deno.mkdir(app);
const origin = `127.0.0.1:${server.addr.port}`;
const denos = [
  { bin: deno, name: `Deno ${Deno.version.deno}`, dir: "deno-dir", check: true, allow: [`--allow-net=${host}`, `--allow-import=${origin}`] },
  { bin: `${root}/node_modules/deno-2.5/deno`, name: "Deno 2.5 (LTS)", dir: "deno-dir-2.5", check: false, allow: [`--allow-net=${host},${origin}`, `--allow-import=${origin}`] },
];
try {
  for (const { bin, name, dir, check, allow } of denos) {
    const env = { DENO_DIR: `${work}/${dir}`, NPM_CONFIG_REGISTRY: `${base}npm/` };
    for (const [subpath, entry] of Object.entries(exports)) {
      const consumer = consumers[subpath];
      if (!consumer) {
        fail(`no consumer checks the export ${subpath}`);
        continue;
      }
      const url = new URL(entry, base).href;
      const script = `${app}/${subpath === "." ? "main" : subpath.slice(2)}.ts`;
      await Deno.writeTextFile(script, consumer(url));
      const t0 = Date.now();
      // --check: the consumer is type-checked against the published types before it runs (on the
      // current Deno; 2.5 would fetch @types/node for compat's node: imports, which the test's
      // registry does not serve).
      const out = await run(["run", ...(check ? ["--check"] : []), "--no-config", "--no-lock", "--quiet", ...allow, script], { cwd: app, env }, bin);
      if (out.code === 0 && /^5\.0\.\d+\s*$/.test(out.text)) {
        pass(`${name}: jsr:@cqlwire/cqlwire${subpath.slice(1)} served over HTTP (${url}) imports and queries ${host}: ${out.text.trim()} (${Date.now() - t0} ms)`);
      } else {
        fail(`${name}: importing ${url} and querying: exit ${out.code}\n${out.text}`);
      }
    }
  }
} finally {
  await server.shutdown();
}
// The rewrite above is what makes the npm dependencies resolve without an import map.
for (const [name, { served }] of npm) {
  if (served > 0) pass(`npm:${name}@${npmDeps.get(name)} came from the test's registry (${served} downloads)`);
  else fail(`npm:${name} was never downloaded: the rewritten specifier was not used`);
}
if (failures > 0) {
  console.log(`jsr_publish: ${failures} check(s) failed`);
  Deno.exit(1);
}
console.log("jsr_publish: all checks passed");
