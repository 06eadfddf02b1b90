/**
 * Shared pieces of the fault scenarios: clients through the fault proxy, tables and their
 * content digests, the CLI as a subprocess with its peak RSS, and the results table (each
 * scenario writes its row under tests/faults/out/; `make faults-results` publishes them into
 * the tracked tests/faults/RESULTS.md and results.json).
 */
import { Client, type ClientOptions } from "../../driver/deno.ts";
import { FaultProxy } from "../proxy/proxy.ts";
import { assertExact } from "../exact.mjs";

export const ROOT = new URL("../../", import.meta.url).pathname;
export const CQLWIRE = `${ROOT}bin/cqlwire`;
/** The node the single-node scenarios use (node 1 of the 3-node cluster too). */
export const TARGET = Deno.env.get("CQLWIRE_FAULTS_TARGET") ?? "127.0.0.1:9042";
export const KEYSPACE = "cqlwire_faults";
export const DC = "datacenter1";

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function assert(cond: unknown, message = "assertion failed"): asserts cond {
  if (!cond) throw new Error(message);
}

/** Exact equality (tests/exact.mjs): a Map is not {}, NaN is not null, -0 is not 0. */
export function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  assertExact(actual, expected, message);
}

export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

export function targetHostPort(): { host: string; port: number } {
  const i = TARGET.lastIndexOf(":");
  return { host: TARGET.slice(0, i), port: Number(TARGET.slice(i + 1)) };
}

export function startProxy(): Promise<FaultProxy> {
  return FaultProxy.start({ target: targetHostPort() });
}

/** A client whose only path to the cluster is the proxy (no peer discovery). */
export function clientVia(proxy: { address: string }, extra: Partial<ClientOptions> = {}): Client {
  return new Client({ contactPoints: [proxy.address], localDataCenter: DC, discoverPeers: false, ...extra } as ClientOptions);
}

/** A client straight to the target node, for setup and for checking invariants. */
export function directClient(extra: Partial<ClientOptions> = {}): Client {
  return new Client(
    { contactPoints: [TARGET], localDataCenter: DC, discoverPeers: false, requestTimeout: 60_000, ...extra } as ClientOptions,
  );
}

export async function ensureKeyspace(c: Client, keyspace = KEYSPACE, replicationFactor = 1): Promise<void> {
  await c.execute(
    `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': ${replicationFactor}}`,
  );
  // IF NOT EXISTS keeps whatever factor an earlier run chose; a scenario must get the one it asks for.
  const rs = await c.execute("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?", [keyspace]);
  const replication = rs.first()?.replication as Map<string, string> | Record<string, string> | undefined;
  const factor = replication instanceof Map ? replication.get("replication_factor") : replication?.replication_factor;
  if (factor !== String(replicationFactor)) {
    await c.execute(
      `ALTER KEYSPACE ${keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': ${replicationFactor}}`,
    );
  }
}

/** Drops and creates `keyspace.table` as (id int PRIMARY KEY, v text). */
export async function freshTable(c: Client, table: string, keyspace = KEYSPACE, replicationFactor = 1): Promise<string> {
  await ensureKeyspace(c, keyspace, replicationFactor);
  const name = `${keyspace}.${table}`;
  await c.execute(`DROP TABLE IF EXISTS ${name}`);
  await c.execute(`CREATE TABLE ${name} (id int PRIMARY KEY, v text)`);
  return name;
}

/** The value the scenarios store for row `id`: some rows need CSV quoting. */
export function valueOf(id: number): string {
  if (id % 7 === 0) return `row ${id}, with "quotes" and a comma`;
  return `row-${id}-${(id * 2654435761 >>> 0).toString(36)}`;
}

function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** A CSV of rows 0..n-1 with a header, as the loader scenarios feed the CLI. */
export async function writeRowsCsv(path: string, n: number): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  try {
    let buf = "id,v\n";
    for (let id = 0; id < n; id++) {
      buf += `${id},${csvField(valueOf(id))}\n`;
      if (buf.length > 1 << 16) {
        await writeAll(file, enc.encode(buf));
        buf = "";
      }
    }
    await writeAll(file, enc.encode(buf));
  } finally {
    file.close();
  }
}

export async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await file.write(bytes.subarray(off));
}

export interface Digest {
  count: number;
  /** SHA-256 of "id\tv\n" lines in id order. */
  hash: string;
  /** Expected ids absent from the table, and ids present but not expected. */
  missing: number;
  unexpected: number;
  /** Rows whose value differs from the expected one. */
  wrongValues: number;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function expectedHash(n: number): Promise<string> {
  let text = "";
  for (let id = 0; id < n; id++) text += `${id}\t${valueOf(id)}\n`;
  return sha256(text);
}

/**
 * Reads the whole table back (paged) and compares it with rows 0..n-1: the invariant
 * check of every load scenario. `consistency` for multi-node checks (QUORUM).
 */
export async function digestTable(c: Client, table: string, n: number, consistency?: number): Promise<Digest> {
  const rows: Array<[number, string]> = [];
  for await (const row of c.stream(`SELECT id, v FROM ${table}`, [], { pageSize: 5000, consistency })) {
    rows.push([row.id as number, row.v as string]);
  }
  rows.sort((a, b) => a[0] - b[0]);
  let missing = 0;
  let unexpected = 0;
  let wrongValues = 0;
  const seen = new Set<number>();
  for (const [id, v] of rows) {
    seen.add(id);
    if (id < 0 || id >= n) unexpected++;
    else if (v !== valueOf(id)) wrongValues++;
  }
  for (let id = 0; id < n; id++) if (!seen.has(id)) missing++;
  const hash = await sha256(rows.map(([id, v]) => `${id}\t${v}\n`).join(""));
  const counted = await c.execute(`SELECT COUNT(*) AS n FROM ${table}`, [], { consistency, timeout: 60_000 });
  return { count: Number(counted.first()?.n ?? -1), hash, missing, unexpected, wrongValues };
}

/** Server codes of a read that could not reach enough replicas in time: availability, not content. */
const READ_AVAILABILITY_CODES = new Set([0x1000 /* Unavailable */, 0x1200 /* ReadTimeout */]);

/**
 * A full scan right after a node came back can time out on the server (a coordinator still
 * picks the recovering replica); such a scan is asked again, a few times, and noted.
 */
async function digestWithReadRetries(c: Client, table: string, n: number, consistency: number | undefined, m: Measured): Promise<Digest> {
  for (let attempt = 1;; attempt++) {
    try {
      return await digestTable(c, table, n, consistency);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (attempt >= 6 || typeof code !== "number" || !READ_AVAILABILITY_CODES.has(code)) throw e;
      m.notes.push(`verification scan ${attempt}: ${(e as Error).message}; asked again`);
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
}

/** Throws unless the table holds exactly rows 0..n-1 with their values. */
export async function assertExactContent(c: Client, table: string, n: number, m: Measured, consistency?: number): Promise<void> {
  const d = await digestWithReadRetries(c, table, n, consistency, m);
  m.rowsCounted = d.count;
  m.rowsLost = d.missing;
  const want = await expectedHash(n);
  assertEquals(
    { count: d.count, missing: d.missing, unexpected: d.unexpected, wrongValues: d.wrongValues, hashMatches: d.hash === want },
    { count: n, missing: 0, unexpected: 0, wrongValues: 0, hashMatches: true },
    `content of ${table}`,
  );
}

// ---- memory ------------------------------------------------------------------------------------

/** Samples this process's RSS; `peakMb` is the highest sample. */
export class RssSampler {
  samples: Array<{ at: number; rssMb: number }> = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  constructor(private intervalMs = 100) {}
  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    return this;
  }
  sample(): number {
    const rssMb = Deno.memoryUsage().rss / 2 ** 20;
    this.samples.push({ at: performance.now(), rssMb });
    return rssMb;
  }
  stop(): this {
    clearInterval(this.timer);
    this.sample();
    return this;
  }
  get peakMb(): number {
    return Math.max(...this.samples.map((s) => s.rssMb));
  }
}

/** VmRSS and VmHWM (peak) of a process, in MiB, or null once it is gone. */
export function procMemoryMb(pid: number): { rss: number; peak: number } | null {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    const rss = kb("VmRSS") / 1024;
    const peak = kb("VmHWM") / 1024;
    // An exiting process (a zombie) has no memory lines any more.
    return Number.isFinite(rss) && Number.isFinite(peak) ? { rss, peak } : null;
  } catch {
    return null;
  }
}

// ---- the CLI -----------------------------------------------------------------------------------

export interface CliRun {
  code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** The highest VmHWM seen while it ran (the launcher execs Deno, so the pid is Deno's). */
  peakRssMb: number;
  killedForMemory: boolean;
  /** Killed at `timeoutMs`: it hung or crawled. */
  timedOut: boolean;
}

export interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Called once it runs, e.g. to kill it at some point. */
  onSpawn?: (child: Deno.ChildProcess) => void;
  /** Killed (and reported) above this RSS, so a runaway load cannot take the machine down. */
  maxRssMb?: number;
  timeoutMs?: number;
}

/** Runs bin/cqlwire with `args`; never rejects on a non-zero exit. */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  const env: Record<string, string> = { NO_COLOR: "1", ...options.env };
  const child = new Deno.Command(CQLWIRE, { args, env, cwd: options.cwd, stdout: "piped", stderr: "piped" }).spawn();
  let peak = 0;
  let killedForMemory = false;
  const watch = setInterval(() => {
    const mem = procMemoryMb(child.pid);
    if (!mem) return;
    peak = Math.max(peak, mem.peak);
    if (options.maxRssMb && mem.rss > options.maxRssMb && !killedForMemory) {
      killedForMemory = true;
      child.kill("SIGKILL");
    }
  }, 50);
  let timedOut = false;
  const timeout = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, options.timeoutMs ?? 300_000);
  options.onSpawn?.(child);
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  clearInterval(watch);
  clearTimeout(timeout);
  return { code: status.code, signal: status.signal, stdout, stderr, peakRssMb: Math.round(peak), killedForMemory, timedOut };
}

export function describeRun(run: CliRun): string {
  const tail = (s: string) => s.trim().split("\n").slice(-8).join("\n    ");
  const why = run.timedOut ? " (killed: timed out)" : run.killedForMemory ? " (killed: RSS over the limit)" : "";
  return `exit ${run.code}${run.signal ? ` (${run.signal})` : ""}${why}\n  stdout: ${tail(run.stdout)}\n  stderr: ${tail(run.stderr)}`;
}

/** The CLI's connection flags for a single proxied (or direct) contact point. */
export function cliHosts(address: string): string[] {
  return ["--hosts", address, "--dc", DC];
}

/**
 * The start of a CLI load scenario through the proxy: a fresh `table`, a CSV of `rows` rows in
 * a new temporary directory, and a proxy that counts the keys of the INSERTs into that table.
 */
export async function proxiedLoadSetup(
  table: string,
  rows: number,
): Promise<{ table: string; dir: string; csv: string; proxy: FaultProxy }> {
  const setup = directClient();
  const name = await freshTable(setup, table);
  await setup.shutdown();
  const dir = await tempDir(table);
  const csv = `${dir}/rows.csv`;
  await writeRowsCsv(csv, rows);
  const proxy = await startProxy();
  proxy.tapKeys({ statementContains: ["INSERT INTO", `"${table}"`], valueIndex: 0 });
  return { table: name, dir, csv, proxy };
}

export async function tempDir(prefix: string): Promise<string> {
  return await Deno.makeTempDir({ prefix: `cqlwire-faults-${prefix}-` });
}

// ---- results -----------------------------------------------------------------------------------

export interface Measured {
  rowsSent: number | null;
  rowsCounted: number | null;
  rowsLost: number | null;
  duplicates: number | null;
  peakRssMb: number | null;
  notes: string[];
}

export interface ResultRow extends Measured {
  scenario: string;
  suite: string;
  invariant: string;
  outcome: string;
  measuredAt: string;
}

/**
 * Runs write their rows here (ignored by git), never into the tracked tables: a test run must
 * not modify tracked files. `make faults-results` publishes them on purpose (publish.ts).
 */
export const RESULTS_OUT = Deno.env.get("CQLWIRE_FAULTS_OUT") ?? `${ROOT}tests/faults/out`;
/** The committed tables that `make faults-results` regenerates. */
export const PUBLISHED_JSON = `${ROOT}tests/faults/results.json`;
export const PUBLISHED_MD = `${ROOT}tests/faults/RESULTS.md`;

export async function readResults(path: string): Promise<ResultRow[]> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
}

/** `rows` with each of `updates` replacing the row of the same scenario, sorted. */
export function mergeResults(rows: ResultRow[], updates: ResultRow[]): ResultRow[] {
  const names = new Set(updates.map((r) => r.scenario));
  const all = [...rows.filter((r) => !names.has(r.scenario)), ...updates];
  return all.sort((a, b) => a.suite.localeCompare(b.suite) || a.scenario.localeCompare(b.scenario));
}

/** Writes `rows` to the JSON and Markdown tables, each through a renamed temp file. */
export async function writeResults(json: string, md: string, rows: ResultRow[]): Promise<void> {
  for (const [path, text] of [[json, JSON.stringify(rows, null, 2) + "\n"], [md, renderResults(rows)]]) {
    await Deno.writeTextFile(`${path}.tmp`, text);
    await Deno.rename(`${path}.tmp`, path);
  }
}

async function recordResult(row: ResultRow): Promise<void> {
  await Deno.mkdir(RESULTS_OUT, { recursive: true });
  const json = `${RESULTS_OUT}/results.json`;
  await writeResults(json, `${RESULTS_OUT}/RESULTS.md`, mergeResults(await readResults(json), [row]));
}

function cell(v: number | null): string {
  return v === null ? "n/a" : String(v);
}

export function renderResults(rows: ResultRow[]): string {
  const lines = [
    "# Fault scenarios: measured results",
    "",
    "Generated by `make faults-results` from the rows the scenarios of `tests/faults/` wrote under",
    "`tests/faults/out/`. `n/a`: not observable in that scenario (e.g. no proxy in the path to count resent rows).",
    "Duplicates are rows a client sent more than once (retries, or re-sent after a resume),",
    "counted by the fault proxy from the EXECUTE/BATCH values it forwarded.",
    "",
    "| Scenario | Suite | Invariant | Outcome | Rows sent | Rows counted | Rows lost | Duplicates | Peak RSS (MiB) | Measured |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  const esc = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");
  for (const r of rows) {
    lines.push(
      `| ${esc(r.scenario)} | ${r.suite} | ${esc(r.invariant)} | ${esc(r.outcome)} | ${cell(r.rowsSent)} | ${cell(r.rowsCounted)} | ${
        cell(r.rowsLost)
      } | ${cell(r.duplicates)} | ${cell(r.peakRssMb)} | ${r.measuredAt} |`,
    );
  }
  const notes = rows.filter((r) => r.notes.length > 0);
  if (notes.length > 0) {
    lines.push("", "## Notes", "");
    for (const r of notes) lines.push(`- **${esc(r.scenario)}**: ${r.notes.map(esc).join("; ")}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * A scenario: a Deno test whose measurements land in the results table, pass or fail.
 * Sanitizers are off: the driver's unref'd timers and the proxy's sockets outlive a test
 * by a tick, which is not what these tests are about.
 */
export function scenario(
  suite: "single" | "cluster",
  name: string,
  invariant: string,
  body: (m: Measured) => Promise<void>,
  options: { ignore?: boolean } = {},
): void {
  Deno.test({
    name,
    ignore: options.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    sanitizeExit: true,
    fn: async () => {
      const m: Measured = { rowsSent: null, rowsCounted: null, rowsLost: null, duplicates: null, peakRssMb: null, notes: [] };
      let outcome = "pass";
      try {
        await body(m);
      } catch (e) {
        outcome = `FAIL: ${String((e as Error)?.message ?? e).split("\n").slice(0, 3).join(" ").slice(0, 300)}`;
        throw e;
      } finally {
        if (m.peakRssMb !== null) m.peakRssMb = Math.round(m.peakRssMb);
        await recordResult({ scenario: name, suite, invariant, outcome, measuredAt: new Date().toISOString().slice(0, 16) + "Z", ...m });
      }
    },
  });
}

/** Counts errors by a short description, for notes. */
export class ErrorTally {
  counts = new Map<string, number>();
  total = 0;
  add(e: unknown): void {
    this.total++;
    const err = e as Error & { code?: unknown };
    const key = `${err?.name ?? "Error"}${err?.code !== undefined ? ` ${String(err.code)}` : ""}: ${
      String(err?.message ?? e).replace(/\d+/g, "N").slice(0, 120)
    }`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  summary(limit = 4): string {
    return [...this.counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([k, n]) => `${n}× ${k}`).join("; ");
  }
}

/** Attempts the driver sent again (retries and speculative executions): an upper bound of duplicates. */
export function resentByDriver(c: Client): number {
  const core = c.getMetrics().core as { retries?: number; speculative_executions?: number };
  return (core.retries ?? 0) + (core.speculative_executions ?? 0);
}

export const CONSISTENCY = { one: 1, quorum: 4, all: 5, localQuorum: 6 } as const;

export { Client, FaultProxy };
