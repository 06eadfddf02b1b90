/**
 * The driver on older Deno releases: the LTS line (2.5) and the oldest supported one (2.0),
 * each the `deno-*` npm alias of @deno/linux-x64-glibc in package.json (npm ci installs them
 * beside node_modules/.bin/deno, which stays this repo's Deno). They have no source phase
 * import of Wasm, so driver/deno_wasm.ts reads the .wasm beside the module: this checks that
 * each of them runs a prepared round trip through the sources and the npm bundle (native API
 * and compat) with the permissions README names and no more, that the read permission is
 * really needed there, that a remote driver fetches the .wasm, and that this repo's Deno still
 * loads the driver with no read permission (the module graph's source phase import).
 */
import { Client } from "../../driver/deno.ts";
import { hasSourcePhaseImports } from "../../driver/deno_wasm.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const HOST = (Deno.env.get("CQLWIRE_HOSTS") ?? "127.0.0.1:9042").split(",")[0];
const KEYSPACE = "cqlwire_deno_versions";
const CONSUMER = `${ROOT}/tests/deno_versions/consumer.ts`;
const WASM = { src: `${ROOT}/driver/wasm/pkg/cqlwire_wasm_bg.wasm`, dist: `${ROOT}/dist/wasm/pkg/cqlwire_wasm_bg.wasm` };

/** Each `deno-<line>` devDependency: its binary and the version its alias pins. */
function olderDenos(): { name: string; bin: string; version: string }[] {
  const deps: Record<string, string> = JSON.parse(Deno.readTextFileSync(`${ROOT}/package.json`)).devDependencies;
  return Object.entries(deps).flatMap(([name, spec]) => {
    const pinned = /^deno-[\d.]+$/.test(name) && /^npm:@deno\/linux-x64-glibc@(\d+\.\d+\.\d+)$/.exec(spec);
    return pinned ? [{ name, bin: `${ROOT}/node_modules/${name}/deno`, version: pinned[1] }] : [];
  });
}

let nextId = 0;
async function consume(deno: string, side: string, permissions: string[], env: Record<string, string> = {}) {
  const id = String((nextId += 10));
  const args = ["run", "--quiet", "--no-lock", ...permissions, CONSUMER, side, HOST, KEYSPACE, id];
  const out = await new Deno.Command(deno, { args, cwd: ROOT, stdin: "null", env: { NO_COLOR: "1", ...env } }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text: text.trim() };
}

async function expectOk(deno: string, version: string, side: string, permissions: string[], env?: Record<string, string>) {
  const { code, text } = await consume(deno, side, permissions, env);
  if (code !== 0 || text !== `ok ${version}`) {
    throw new Error(`deno ${version} ${side} [${permissions.join(" ")}]: exit ${code}\n${text}`);
  }
}

Deno.test(`Cassandra at ${HOST}: the round trip table (no silent skips)`, async () => {
  const client = new Client({ contactPoints: [HOST], localDataCenter: "datacenter1" });
  try {
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await client.execute(`CREATE TABLE IF NOT EXISTS ${KEYSPACE}.round_trip (id int PRIMARY KEY, b blob, n bigint)`);
  } finally {
    await client.shutdown();
  }
});

const denos = olderDenos();
Deno.test("package.json pins the LTS line and the oldest supported Deno", () => {
  const lines = denos.map((d) => d.version).sort().join(" ");
  if (lines !== "2.0.6 2.5.7") throw new Error(`deno-* devDependencies: ${lines}`);
});

for (const { name, bin, version } of denos) {
  Deno.test(`node_modules/${name} is Deno ${version} (npm ci installs it)`, async () => {
    const out = await new Deno.Command(bin, { args: ["--version"] }).output().catch((e) => {
      throw new Error(`${bin}: ${e.message}: run npm ci (scripts/bootstrap)`);
    });
    const first = new TextDecoder().decode(out.stdout).split("\n")[0];
    if (!first.startsWith(`deno ${version} `)) throw new Error(`${bin} --version: ${first}`);
  });

  for (const side of ["src", "dist"] as const) {
    Deno.test(`Deno ${version}, ${side}: prepared blob + bigint round trip, native and compat, --allow-read of the .wasm only`, () =>
      expectOk(bin, version, side, [`--allow-net=${HOST}`, `--allow-read=${WASM[side]}`]));
  }

  Deno.test(`Deno ${version}: without --allow-read the driver says which file it needs`, async () => {
    const { code, text } = await consume(bin, "src", [`--allow-net=${HOST}`]);
    const needs = `Requires read access to "${WASM.src}"`;
    if (code === 0 || !text.includes(needs)) throw new Error(`expected a failure naming ${needs}: exit ${code}\n${text}`);
  });

  Deno.test(`Deno ${version}: driver/deno.ts over HTTP fetches its .wasm (--allow-net of the host)`, async () => {
    const types: Record<string, string> = { ts: "application/typescript", js: "text/javascript", wasm: "application/wasm" };
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      const path = new URL(req.url).pathname;
      if (!path.startsWith("/driver/") || path.includes("..")) return new Response("not found", { status: 404 });
      const body = await Deno.readFile(`${ROOT}${path}`).catch(() => null);
      if (body === null) return new Response("not found", { status: 404 });
      return new Response(body, { headers: { "content-type": types[path.slice(path.lastIndexOf(".") + 1)] ?? "text/plain" } });
    });
    const origin = `127.0.0.1:${server.addr.port}`;
    // A DENO_DIR of its own, so the modules of a port used once do not pile up in the cache.
    const denoDir = await Deno.makeTempDir({ prefix: "cqlwire-deno-versions-" });
    try {
      const permissions = [`--allow-net=${HOST},${origin}`, `--allow-import=${origin}`];
      await expectOk(bin, version, `http://${origin}/driver/deno.ts`, permissions, { DENO_DIR: denoDir });
    } finally {
      await Deno.remove(denoDir, { recursive: true });
    }
  });
}

for (const side of ["src", "dist"] as const) {
  Deno.test(`Deno ${Deno.version.deno} (this repo's), ${side}: the same round trip with no read permission`, () =>
    expectOk(Deno.execPath(), Deno.version.deno, side, [`--allow-net=${HOST}`]));
}

Deno.test("hasSourcePhaseImports: Deno 2.6 and later, by number, not text", () => {
  const cases: [string, boolean][] = [["2.0.6", false], ["2.5.7", false], ["2.6.0-rc.1", true], ["2.6.0", true], ["2.10.0", true], ["3.0.0", true], ["1.46.3", false]];
  const wrong = cases.filter(([version, expected]) => hasSourcePhaseImports(version) !== expected);
  if (wrong.length > 0) throw new Error(`wrong for ${wrong.map(([v]) => v).join(", ")}`);
});
