// The null server's Scylla personality (bench/nullserver, `--scylla-shards N`), started on
// free ports for one test and stopped after it. The runtime supplies `spawn(path, args)`:
// { onStdout(chunk: string), exitCode(): number | null, kill(): Promise<void> } (node_run.mjs
// with node:child_process, scylla_test.ts with Deno.Command).

export const NULLSERVER = new URL("../../bench/target/release/cqlwire-nullserver", import.meta.url).pathname;
const BUILD_HINT = "build it with (cd bench/nullserver && CARGO_TARGET_DIR=../target cargo build --release)";
const START_TIMEOUT_MS = 10_000;

/**
 * Starts the server through `spawn`; `extra` are more flags (`--scylla-nat`, `--scylla-rate-limit-every K`).
 * Resolves to { address, totals(until), stop() }: `totals(until)` waits until every connection
 * the server accepted has closed and gives the Scylla counters of its last totals line. A
 * client that closed one connection before opening the next (a probe) leaves an early line
 * that looks complete while the later lines are still on their way, so every caller says with
 * `until(counters)` what the client saw answered (which the server counted before answering),
 * and the wait goes on until a line shows it. If none does within the timeout, the last
 * counters are returned for the caller's assertions to report.
 */
export async function startScyllaServer(spawn, shards, extra = []) {
  const lines = [];
  let wake = () => {};
  let buffered = "";
  const onStdout = (chunk) => {
    buffered += chunk;
    const parts = buffered.split("\n");
    buffered = parts.pop();
    lines.push(...parts);
    wake();
  };
  let child;
  try {
    child = spawn(NULLSERVER, ["127.0.0.1:0", "--scylla-shards", String(shards), "--scylla-shard-port", "0", ...extra], onStdout);
  } catch (e) {
    throw new Error(`cannot start ${NULLSERVER} (${e}): ${BUILD_HINT}`);
  }
  const waitFor = async (ok, what, ms) => {
    const deadline = Date.now() + ms;
    while (!ok()) {
      if (child.exitCode() !== null) throw new Error(`the null server exited (${child.exitCode()}) before ${what}`);
      if (Date.now() > deadline) throw new Error(`the null server did not report ${what} within ${ms} ms`);
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  await waitFor(() => lines.some((l) => l.startsWith("shard-aware port on ")), "its ports", START_TIMEOUT_MS);
  const address = lines.find((l) => l.startsWith("listening on ")).slice("listening on ".length);
  const totalsLines = () => lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  return {
    address,
    async totals(until) {
      // One totals line per closed connection; each counts the connections accepted so far.
      const closedAll = () => {
        const t = totalsLines();
        return t.length > 0 && t.length >= t[t.length - 1].connections;
      };
      const last = () => totalsLines().at(-1).scylla;
      try {
        await waitFor(() => closedAll() && until(last()), "the final counters", START_TIMEOUT_MS);
      } catch (e) {
        // Counters that never reach what `until` asks are the test's finding: give them to
        // its assertions, which say what differs; a server that never reported stays an error.
        if (!closedAll()) throw e;
      }
      return last();
    },
    stop: () => child.kill(),
  };
}
