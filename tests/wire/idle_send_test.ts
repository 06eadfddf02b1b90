/**
 * When a request leaves: counted at the socket, never timed. With nothing else in flight a
 * request is written inside the `execute` call (every microtask hop is on a lone request's
 * round trip); requests started together still share one write, so a burst costs a write
 * or two, not one each.
 */
import { assertExact } from "../exact.mjs";
import { denoSocketFactory } from "../../driver/transport/deno.ts";
import { type AnyClient, withNode } from "./helpers.ts";

const INSERT = "INSERT INTO idle_ks.t (k, v) VALUES (?, ?)";

/**
 * Holds what the socket reads while `holding` is set, and hands it over as one chunk on
 * `release()`: many responses then settle in one turn, however the kernel cut them.
 */
class HeldReads {
  holding = false;
  private chunks: Uint8Array[] = [];
  private deliver: ((chunk: Uint8Array) => void) | null = null;
  bytes = 0;

  wrap(onData: (chunk: Uint8Array) => void): (chunk: Uint8Array) => void {
    this.deliver = onData;
    return (chunk) => {
      if (!this.holding) return onData(chunk);
      this.chunks.push(chunk.slice());
      this.bytes += chunk.length;
    };
  }

  release(): void {
    this.holding = false;
    const all = new Uint8Array(this.bytes);
    let at = 0;
    for (const c of this.chunks) (all.set(c, at), (at += c.length));
    this.chunks = [];
    this.bytes = 0;
    this.deliver!(all);
  }
}

/** A fake node and a client whose socket writes are counted (`writes()`), prepared and idle. */
async function withCountedWrites(body: (client: AnyClient, writes: () => number, reads: HeldReads) => Promise<void>): Promise<void> {
  let writes = 0;
  const reads = new HeldReads();
  const socketFactory = async (target: Parameters<typeof denoSocketFactory>[0], handlers: Parameters<typeof denoSocketFactory>[1]) => {
    const inner = await denoSocketFactory(target, { onData: reads.wrap(handlers.onData), onClose: handlers.onClose });
    return {
      write(data: Uint8Array) {
        writes++;
        return inner.write(data);
      },
      close: () => inner.close(),
    };
  };
  await withNode({ protocolVersion: 4, client: { socketFactory } }, async (_node, client) => {
    await client.execute(INSERT, [0, 0], { prepare: true });
    await body(client, () => writes, reads);
  });
}

Deno.test("a request started with nothing in flight is written within the execute call", async () => {
  await withCountedWrites(async (client, writes) => {
    for (let i = 1; i <= 3; i++) {
      const before = writes();
      const done = client.execute(INSERT, [i, i], { prepare: true });
      const inTheCall = writes() - before;
      await done;
      assertExact(inTheCall, 1);
    }
  });
});

Deno.test("one request in flight at a time: exactly one write per request", async () => {
  await withCountedWrites(async (client, writes) => {
    const before = writes();
    for (let i = 1; i <= 50; i++) await client.execute(INSERT, [i, i], { prepare: true });
    assertExact(writes() - before, 50);
  });
});

Deno.test("a burst started in one task leaves in two writes: the first request, then the rest together", async () => {
  await withCountedWrites(async (client, writes) => {
    const before = writes();
    const all = Array.from({ length: 64 }, (_, i) => client.execute(INSERT, [i, i], { prepare: true }));
    const inTheCalls = writes() - before;
    await Promise.all(all);
    assertExact([inTheCalls, writes() - before], [1, 2]);
  });
});

Deno.test("requests started by the callers of many responses settled at once leave in one write", async () => {
  await withCountedWrites(async (client, writes, reads) => {
    const n = 64;
    // A v4 Void result: a 9-byte header and a 4-byte body.
    const voidResults = n * 13;
    reads.holding = true;
    const firsts = Array.from({ length: n }, (_, i) => client.execute(INSERT, [i, i], { prepare: true }));
    for (let i = 0; i < 500 && reads.bytes < voidResults; i++) await new Promise((r) => setTimeout(r, 10));
    assertExact(reads.bytes, voidResults);
    const before = writes();
    const seconds = firsts.map((p, i) => p.then(() => client.execute(INSERT, [n + i, i], { prepare: true })));
    reads.release();
    await Promise.all(seconds);
    assertExact(writes() - before, 1);
  });
});
