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

/** A fake node and a client whose socket writes are counted (`writes()`), prepared and idle. */
async function withCountedWrites(body: (client: AnyClient, writes: () => number) => Promise<void>): Promise<void> {
  let writes = 0;
  const socketFactory = async (target: Parameters<typeof denoSocketFactory>[0], handlers: Parameters<typeof denoSocketFactory>[1]) => {
    const inner = await denoSocketFactory(target, handlers);
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
    await body(client, () => writes);
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
