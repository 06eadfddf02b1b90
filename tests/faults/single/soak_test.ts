/**
 * A soak: mixed load (inserts, point reads, paged reads broken off early, batches, reads
 * with a timeout short enough to expire) for CQLWIRE_SOAK_SECONDS (30 by default; 600 in
 * `make test-faults`), with connection churn (a connection reset every 4 s) and latency
 * spikes. The client runs in its own process (tests/faults/soak_client.ts) and the proxy in
 * another, so the measured RSS is the client's; a full GC precedes each sample. RSS and
 * orphaned stream ids, sampled every second, must stay flat.
 */
import { assert, directClient, ensureKeyspace, KEYSPACE, type Measured, scenario, TARGET, valueOf } from "../helpers.ts";
import { RemoteProxy } from "../../proxy/remote.ts";

const SECONDS = Number(Deno.env.get("CQLWIRE_SOAK_SECONDS") ?? 30);
/** The last third's maximum may exceed the first third's by this factor (after warm-up). */
const FLATNESS = 1.3;
/**
 * RSS is held flat only over a run this long. In a 30-s run on a busy machine the
 * runtime's native allocator is still warming up (seen: RSS 91 → 133 MiB while the JS heap,
 * ArrayBuffers and the core's WASM memory stayed at 9, 2–3 and 1.5 MiB); the memory the
 * client owns (heap + external + WASM, after a full GC) is held flat in every run.
 */
const RSS_FLAT_AFTER_SECONDS = 300;
/** Owned memory is a few MiB: this much absolute slack on top of the factor. */
const OWNED_SLACK_MB = 4;
/** Orphan counts are small integers; this much absolute slack on top of the factor. */
const ORPHAN_SLACK = 16;

interface Sample {
  at: number;
  rssMb: number;
  wasmMb: number;
  externalMb: number;
  heapMb: number;
  orphans: number;
  inFlight: number;
  queued: number;
  connections: number;
  requests: number;
}

interface Summary {
  requests: number;
  errors: number;
  errorSummary: string;
  settled: boolean;
  answered: boolean;
  gc: boolean;
}

function thirds(samples: Sample[], warmupS: number): [Sample[], Sample[]] {
  const steady = samples.filter((s) => s.at >= warmupS);
  const third = Math.max(1, Math.floor(steady.length / 3));
  return [steady.slice(0, third), steady.slice(steady.length - third)];
}

scenario(
  "single",
  "soak: mixed load with connection churn",
  `${SECONDS} s of mixed load (16 workers, own process) through the proxy with a connection reset every 4 s and 1 s latency spikes: after warm-up, the last third's peak owned memory (JS heap + ArrayBuffers + WASM, after a full GC; +${OWNED_SLACK_MB} MiB), RSS (runs of ${RSS_FLAT_AFTER_SECONDS} s and more) and orphaned stream ids within ${FLATNESS}x the first third's (+${ORPHAN_SLACK} orphans); every request settles; the client answers at the end`,
  async (m: Measured) => {
    const setup = directClient();
    try {
      await ensureKeyspace(setup);
      await setup.execute(`CREATE TABLE IF NOT EXISTS ${KEYSPACE}.soak (id int PRIMARY KEY, v text)`);
      await setup.execute(`CREATE TABLE IF NOT EXISTS ${KEYSPACE}.soak_paged (p int, n int, v text, PRIMARY KEY (p, n))`);
      let next = 0;
      await Promise.all(Array.from({ length: 32 }, async () => {
        while (next < 1000) {
          const n = next++;
          await setup.execute(`INSERT INTO ${KEYSPACE}.soak_paged (p, n, v) VALUES (?, ?, ?)`, [1, n, valueOf(n)], { prepare: true });
        }
      }));
    } finally {
      await setup.shutdown();
    }

    const proxy = await RemoteProxy.start(TARGET);
    const client = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        "--v8-flags=--expose-gc",
        new URL("../soak_client.ts", import.meta.url).pathname,
        proxy.address,
        String(SECONDS),
      ],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const output = Promise.all([new Response(client.stdout).text(), new Response(client.stderr).text(), client.status]);
    try {
      // Churn and latency spikes while the client runs.
      const t0 = performance.now();
      let tick = 0;
      let done = false;
      output.finally(() => (done = true));
      while (!done && performance.now() - t0 < SECONDS * 1000) {
        await new Promise((r) => setTimeout(r, 1_000));
        tick++;
        if (tick % 4 === 0) {
          const open = (await proxy.connections()).filter((x) => x.open);
          if (open.length > 0) await proxy.closeConnection(open[Math.floor(Math.random() * open.length)].id, "reset");
        }
        if (tick % 7 === 3) await proxy.setRules({ latencyMs: 40 });
        if (tick % 7 === 4) await proxy.clearRules();
      }
      await proxy.clearRules();
      const [stdout, stderr, status] = await output;
      const lines = stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
      const samples = lines.filter((l) => l.type === "sample") as Sample[];
      const summary = lines.find((l) => l.type === "summary") as Summary | undefined;
      assert(status.code === 0 && summary, `the soak client failed (exit ${status.code}): ${stderr.slice(-1000)}`);

      const warmup = Math.max(5, SECONDS / 6);
      const [first, last] = thirds(samples, warmup);
      const peak = (xs: Sample[], f: (s: Sample) => number) => Math.max(...xs.map(f));
      const rssFirst = peak(first, (s) => s.rssMb);
      const rssLast = peak(last, (s) => s.rssMb);
      const orphansFirst = peak(first, (s) => s.orphans);
      const orphansLast = peak(last, (s) => s.orphans);
      const stats = await proxy.stats();
      m.peakRssMb = Math.max(...samples.map((s) => s.rssMb));
      m.notes.push(
        `${summary.requests} requests in ${SECONDS} s, ${summary.errors} failed (${summary.errorSummary}); ${stats.cuts.reset} resets; RSS after GC, peak ${
          rssFirst.toFixed(0)
        } → ${rssLast.toFixed(0)} MiB (first → last third); heap ${peak(first, (s) => s.heapMb).toFixed(0)} → ${
          peak(last, (s) => s.heapMb).toFixed(0)
        } MiB; orphans peak ${orphansFirst} → ${orphansLast}; ${summary.answered ? "answers at the end" : "NOT answering at the end"}`,
      );
      const step = Math.max(1, Math.floor(samples.length / 12));
      m.notes.push(
        `samples (s: RSS MiB/heap MiB/external MiB/WASM MiB/orphans/connections): ${
          samples.filter((_, i) => i % step === 0).map((s) =>
            `${s.at.toFixed(0)}: ${s.rssMb.toFixed(0)}/${s.heapMb.toFixed(0)}/${s.externalMb.toFixed(0)}/${s.wasmMb.toFixed(1)}/${s.orphans}/${s.connections}`
          ).join(", ")
        }`,
      );
      assert(summary.gc, "the soak client ran without --expose-gc");
      assert(samples.length >= 6, `only ${samples.length} samples`);
      assert(summary.settled, "requests still unsettled 15 s after the load stopped");
      const owned = (x: Sample) => x.heapMb + x.externalMb + x.wasmMb;
      const ownedFirst = peak(first, owned);
      const ownedLast = peak(last, owned);
      assert(
        ownedLast <= FLATNESS * ownedFirst + OWNED_SLACK_MB,
        `owned memory grew: peak ${ownedFirst.toFixed(1)} MiB (heap + ArrayBuffers + WASM) in the first third, ${ownedLast.toFixed(1)} MiB in the last`,
      );
      assert(
        SECONDS < RSS_FLAT_AFTER_SECONDS || rssLast <= FLATNESS * rssFirst,
        `RSS grew: peak ${rssFirst.toFixed(0)} MiB in the first third, ${rssLast.toFixed(0)} MiB in the last`,
      );
      assert(orphansLast <= FLATNESS * orphansFirst + ORPHAN_SLACK, `orphaned stream ids grew: ${orphansFirst} → ${orphansLast}`);
      assert(summary.answered, `the client no longer answers after the soak: ${summary.errorSummary}`);
    } finally {
      try {
        client.kill("SIGKILL");
      } catch {
        // Exited already.
      }
      await output.catch(() => {});
      await proxy.close();
    }
  },
);
