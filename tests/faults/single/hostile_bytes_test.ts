/**
 * Hostile bytes from the server side: the proxy spoils a frame header field (v4), a v5 CRC,
 * or random bytes. The connection that received them fails with a protocol error naming the
 * field, the process does not crash, other connections and clients go on, and the client
 * recovers. On v5 every flipped byte must be caught (CRCs): no wrong value ever surfaces.
 */
import {
  assert,
  assertEquals,
  type Client,
  clientVia,
  ErrorTally,
  eventually,
  type FaultProxy,
  type Measured,
  scenario,
  sleep,
  startProxy,
} from "../helpers.ts";
import type { CorruptTarget } from "../../proxy/proxy.ts";

const QUERY = "SELECT release_version FROM system.local";

/** Opens `c` and returns the proxy connection ids it added. */
async function connectAndFindConnections(proxy: FaultProxy, c: Client, expected: number): Promise<number[]> {
  const before = new Set(proxy.openConnections().map((x) => x.id));
  await c.connect();
  await eventually(
    `${expected} connection(s) of the new client`,
    () => proxy.openConnections().filter((x) => !before.has(x.id)).length >= expected,
  );
  return proxy.openConnections().filter((x) => !before.has(x.id)).map((x) => x.id);
}

/** A bystander client that queries without pause; counts its failures. */
function bystander(c: Client): { stop(): Promise<{ ok: number; errors: ErrorTally }> } {
  let running = true;
  const errors = new ErrorTally();
  let ok = 0;
  const loop = (async () => {
    while (running) {
      try {
        await c.execute(QUERY);
        ok++;
      } catch (e) {
        errors.add(e);
      }
      await sleep(2);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { ok, errors };
    },
  };
}

const FIELDS: Array<{ target: CorruptTarget; protocolVersion: 4 | 5; field: string }> = [
  { target: "version", protocolVersion: 4, field: "frame header version" },
  { target: "flags", protocolVersion: 4, field: "frame header flags" },
  { target: "stream", protocolVersion: 4, field: "frame header stream" },
  { target: "opcode", protocolVersion: 4, field: "frame header opcode" },
  { target: "length", protocolVersion: 4, field: "frame header length" },
  { target: "crc24", protocolVersion: 5, field: "v5 frame header crc24" },
  { target: "crc32", protocolVersion: 5, field: "v5 frame payload crc32" },
];

scenario(
  "single",
  "hostile bytes: corrupt lengths, opcodes, CRCs",
  "one response on one of a client's 2 connections gets a spoiled header field (version, flags, stream, opcode, length on v4; CRC24, CRC32 on v5): the requests on that connection fail with a protocol error naming the field, the others succeed, a bystander client sees no error, and the client works again",
  async (m: Measured) => {
    const failures: string[] = [];
    for (const { target, protocolVersion, field } of FIELDS) {
      const proxy = await startProxy();
      const victim = clientVia(proxy, { protocolVersion, pooling: { coreConnectionsPerHost: 2, heartBeatInterval: 30_000 } });
      const other = clientVia(proxy, { protocolVersion });
      try {
        const victimConns = await connectAndFindConnections(proxy, victim, 2);
        await connectAndFindConnections(proxy, other, 1);
        const watcher = bystander(other);
        proxy.setConnectionRules(victimConns[0], { corrupt: { target } });
        const results = await Promise.allSettled(Array.from({ length: 40 }, () => victim.execute(QUERY)));
        const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason as Error);
        const succeeded = results.length - failed.length;
        const naming = failed.filter((e) => e.message.includes(field) && /protocol error/.test(e.message));
        // The client recovers: a fresh connection replaces the broken one.
        let recovered = true;
        try {
          await eventually("the victim client to answer again", async () => {
            const again = await Promise.allSettled(Array.from({ length: 10 }, () => victim.execute(QUERY)));
            return again.every((r) => r.status === "fulfilled");
          }, 5_000);
        } catch {
          recovered = false;
        }
        const side = await watcher.stop();
        const line =
          `${target} (v${protocolVersion}): ${failed.length} failed (${naming.length} naming '${field}'), ${succeeded} succeeded; bystander ${side.ok} ok, ${side.errors.total} failed; ${
            recovered ? "recovered" : "NOT recovered"
          }`;
        m.notes.push(line);
        if (failed.length === 0) failures.push(`${target}: no request failed, so the spoiled frame went unnoticed`);
        else if (naming.length !== failed.length) {
          failures.push(`${target}: an error does not name '${field}': ${failed.find((e) => !naming.includes(e))?.message}`);
        }
        if (succeeded === 0) failures.push(`${target}: every request failed, not only those on the spoiled connection`);
        if (side.errors.total > 0) failures.push(`${target}: the bystander client failed: ${side.errors.summary(2)}`);
        if (!recovered) failures.push(`${target}: the client did not recover`);
        assertEquals(proxy.stats().corruptedFrames, 1, `${target}: exactly one frame spoiled`);
      } finally {
        await victim.shutdown();
        await other.shutdown();
        await proxy.close();
      }
    }
    assertEquals(failures, [], "hostile header bytes");
  },
);

scenario(
  "single",
  "hostile bytes: random corruption on v5 (CRC)",
  "for 3 s each byte to one client flips with probability 1/2000 (v5): no request returns a wrong value (the CRCs catch every flip), every request settles, the process survives, a bystander client sees no error, and the client works again afterwards",
  async (m: Measured) => {
    const proxy = await startProxy();
    const victim = clientVia(proxy, {
      protocolVersion: 5,
      requestTimeout: 3_000,
      pooling: { coreConnectionsPerHost: 2, heartBeatInterval: 30_000 },
    });
    const other = clientVia(proxy, { protocolVersion: 5 });
    try {
      await connectAndFindConnections(proxy, victim, 2);
      const otherConns = new Set(await connectAndFindConnections(proxy, other, 1));
      const watcher = bystander(other);
      const expected = (await other.execute(QUERY)).first()?.release_version;
      // New connections of the victim (after each failure) get the same treatment.
      let seed = 1;
      const spoiled = new Set<number>();
      const spoilVictim = () => {
        for (const c of proxy.openConnections()) {
          if (otherConns.has(c.id) || spoiled.has(c.id)) continue;
          spoiled.add(c.id);
          proxy.setConnectionRules(c.id, { corrupt: { probability: 1 / 2000, seed: seed++ } });
        }
      };
      spoilVictim();
      const spoiler = setInterval(spoilVictim, 20);
      const errors = new ErrorTally();
      let ok = 0;
      let wrong = 0;
      const until = performance.now() + 3_000;
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (performance.now() < until) {
          try {
            const v = (await victim.execute(QUERY)).first()?.release_version;
            if (v === expected) ok++;
            else wrong++;
          } catch (e) {
            errors.add(e);
          }
        }
      }));
      clearInterval(spoiler);
      proxy.clearRules();
      const side = await watcher.stop();
      let recovered = true;
      try {
        await eventually("the victim client to answer again", async () => {
          const again = await Promise.allSettled(Array.from({ length: 10 }, () => victim.execute(QUERY)));
          return again.every((r) => r.status === "fulfilled");
        }, 10_000);
      } catch {
        recovered = false;
      }
      const stats = proxy.stats();
      m.notes.push(
        `${stats.corruptedBytes} bytes flipped; ${ok} correct answers, ${wrong} wrong, ${errors.total} errors (${
          errors.summary(3)
        }); bystander ${side.ok} ok, ${side.errors.total} failed`,
      );
      m.peakRssMb = Deno.memoryUsage().rss / 2 ** 20;
      assert(stats.corruptedBytes > 0, "no byte was flipped");
      assertEquals(wrong, 0, "answers with a wrong value");
      assertEquals(side.errors.total, 0, `bystander failures: ${side.errors.summary(2)}`);
      assert(recovered, "the victim client did not recover");
    } finally {
      await victim.shutdown();
      await other.shutdown();
      await proxy.close();
    }
  },
);
