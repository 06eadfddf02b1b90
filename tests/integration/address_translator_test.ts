/**
 * `addressTranslator` against the real node: a TCP forwarder on another loopback port stands in
 * for the address a client behind NAT must dial; the node keeps its advertised name.
 */
import { DriverError, NoHostAvailableError } from "../../driver/deno.ts";
import { assert, assertEquals, assertRejects, client, HOSTS } from "./helpers.ts";

const NODE = HOSTS[0];
const [NODE_HOST, NODE_PORT] = [NODE.slice(0, NODE.lastIndexOf(":")), Number(NODE.slice(NODE.lastIndexOf(":") + 1))];

/** Accepts on 127.0.0.1:<port> and pipes each connection to the node; counts what it accepted. */
function forwarder(): { port: number; accepted: () => number; drop: () => void; close: () => Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const pipes: Promise<unknown>[] = [];
  let accepted = 0;
  const loop = (async () => {
    for await (const inbound of listener) {
      accepted++;
      const outbound = await Deno.connect({ hostname: NODE_HOST, port: NODE_PORT });
      conns.add(inbound).add(outbound);
      const pipe = (from: Deno.Conn, to: Deno.Conn) =>
        from.readable.pipeTo(to.writable).catch(() => {}).finally(() => {
          for (const c of [from, to]) {
            if (conns.delete(c)) c.close();
          }
        });
      pipes.push(pipe(inbound, outbound), pipe(outbound, inbound));
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    accepted: () => accepted,
    /** Cuts every connection open now. */
    drop: () => {
      for (const c of conns) c.close();
      conns.clear();
    },
    close: async () => {
      listener.close();
      await loop;
      for (const c of conns) c.close();
      conns.clear();
      await Promise.allSettled(pipes);
    },
  };
}

Deno.test("addressTranslator: every connection (control and pool) is dialed where it says; nodes keep their names", async () => {
  const fwd = forwarder();
  const calls: Array<[string, number]> = [];
  const c = client({
    pooling: { coreConnectionsPerHost: 3 },
    addressTranslator: async (host: string, port: number) => {
      calls.push([host, port]);
      await null;
      return `127.0.0.1:${fwd.port}`;
    },
  });
  try {
    await c.connect();
    for (let i = 0; i < 20; i++) {
      const rs = await c.execute("SELECT key FROM system.local");
      assertEquals(rs.rows[0].key, "local");
    }
    const state = c.getState();
    const open = state.connections.length;
    assert(open >= 3, `expected 3 pool connections at least, got ${open}`);
    assertEquals(calls.length, fwd.accepted(), "one translator call per socket opened, each through the forwarder");
    assert(calls.length >= open, `${calls.length} calls for ${open} connections`);
    assertEquals(new Set(calls.map(([h, p]) => `${h}:${p}`)), new Set([NODE]), "translated: the advertised (contact) address");
    assertEquals(state.nodes.map((n) => n.address as string), [NODE], "the node keeps its advertised address");
  } finally {
    await c.shutdown();
    await fwd.close();
  }
});

Deno.test("addressTranslator: failing after a drop, the node is down and reconnected once it answers again", async () => {
  const fwd = forwarder();
  let failing = false;
  const failures: string[] = [];
  const c = client({
    policies: { reconnection: { baseDelay: 50, maxDelay: 100 } },
    addressTranslator: () => {
      if (failing) throw new Error("translator offline");
      return { host: "127.0.0.1", port: fwd.port };
    },
  });
  c.on("hostDown", (address) => failures.push(String(address)));
  try {
    await c.connect();
    failing = true;
    fwd.drop();
    const deadline = Date.now() + 5000;
    while (failures.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assertEquals(failures, [NODE], "the node is down, under its advertised name");
    await new Promise((r) => setTimeout(r, 300));
    const state = c.getState();
    assertEquals(state.nodes.map((n) => n.up), [false], "down while the translator fails");
    assertEquals(state.connections.filter((x) => x.ready).length, 0, "no ready connection while the translator fails");
    const before = fwd.accepted();
    failing = false;
    let rows: unknown[] = [];
    while (Date.now() < deadline) {
      try {
        rows = (await c.execute("SELECT key FROM system.local")).rows;
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assertEquals(rows.length, 1, "queries work again");
    assert(fwd.accepted() > before, "reconnected through the forwarder");
  } finally {
    await c.shutdown();
    await fwd.close();
  }
});

/** connect() with `translator` rejects, within the connect timeout, with `message` for the node. */
async function connectFails(translator: (host: string, port: number) => unknown, message: string): Promise<void> {
  const c = client({ addressTranslator: translator, socketOptions: { connectTimeout: 400 } });
  const started = performance.now();
  try {
    const e = await assertRejects(() => c.connect(), (e) => e instanceof NoHostAvailableError, message);
    const elapsed = performance.now() - started;
    assert(elapsed < 1500, `failed after ${elapsed} ms`);
    const inner = (e as NoHostAvailableError).innerErrors;
    assertEquals(Object.keys(inner), [NODE]);
    assert(inner[NODE] instanceof DriverError, "a DriverError");
    // The core reports the attempt as it reports a refused socket.
    assertEquals(inner[NODE].message, `could not connect: ${message} (host ${NODE})`);
  } finally {
    await c.shutdown();
  }
}

Deno.test("addressTranslator: a throw fails the connect attempt, naming the address and the translator", async () => {
  await connectFails(() => {
    throw new Error("boom");
  }, `address translator failed for ${NODE}: boom`);
});

Deno.test("addressTranslator: a rejection fails the connect attempt", async () => {
  await connectFails(() => Promise.reject(new TypeError("no route")), `address translator failed for ${NODE}: no route`);
});

Deno.test("addressTranslator: a bad endpoint fails the connect attempt", async () => {
  await connectFails(() => "127.0.0.1:99999", `address translator gave a bad endpoint for ${NODE}: "127.0.0.1:99999" (expected "host:port" or { host, port })`);
  await connectFails(() => ({ host: "127.0.0.1" }), `address translator gave a bad endpoint for ${NODE}: {"host":"127.0.0.1"} (expected "host:port" or { host, port })`);
});

Deno.test("addressTranslator: one that never answers fails within the connect timeout", async () => {
  await connectFails(() => new Promise(() => {}), `address translator did not answer for ${NODE} within 400 ms`);
});

Deno.test("addressTranslator: must be a function", () => {
  let error: unknown;
  try {
    client({ addressTranslator: "127.0.0.1:1" });
  } catch (e) {
    error = e;
  }
  assertEquals((error as Error)?.message, 'invalid Client options: addressTranslator: expected a function (host, port) => endpoint');
});
