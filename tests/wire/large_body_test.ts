/**
 * A response body over 512 KB is handed to JavaScript where the core holds it (pollEvents'
 * in-place event, issue #17) instead of being copied into the event buffer: the rows must
 * arrive byte for byte, beside small responses in the same turn, page after page, and the
 * core's buffers must be given back (each keeps at most 512 KB) once the body was copied out.
 */
import { assertExact } from "../exact.mjs";
import { rowsBody } from "../fakenode/mod.ts";
import { type AnyClient, withNode } from "./helpers.ts";
import type { FakeNode } from "../fakenode/mod.ts";

const ROWS = 3;
const CELL = 1 << 20;
const MB = 2 ** 20;

/** Row `r`'s blob: every byte depends on its place and its row, so a shifted or stale read shows. */
function cellOf(r: number, page: number): Uint8Array {
  const v = new Uint8Array(CELL);
  for (let i = 0; i < CELL; i++) v[i] = (i * 7 + r * 31 + page * 13 + (i >> 8)) & 0xff;
  return v;
}

async function largePages(node: FakeNode, client: AnyClient): Promise<void> {
  let page = 0;
  node.on({ query: "FROM big_ks.t" }, () => {
    const p = page++;
    return { body: rowsBody({ keyspace: "big_ks", table: "t", columns: [{ name: "v", type: "blob" }], rows: Array.from({ length: ROWS }, (_, r) => [cellOf(r, p)]) }) };
  });
  await client.connect();
  for (let p = 0; p < 3; p++) {
    // A small response races the large one, so both kinds of event can leave in one poll.
    const [large, small] = await Promise.all([client.execute("SELECT v FROM big_ks.t"), client.execute("SELECT release_version FROM system.local")]);
    assertExact(large.rows.length, ROWS);
    for (let r = 0; r < ROWS; r++) assertExact(large.rows[r].v, cellOf(r, p));
    assertExact(typeof small.rows[0].release_version, "string");
    const { coreBufferBytes } = client.getMemoryStats();
    if (coreBufferBytes >= 2.5 * MB) throw new Error(`core buffers after page ${p}: ${coreBufferBytes} bytes (the large body was not released)`);
  }
}

for (const version of [4, 5] as const) {
  Deno.test(`v${version}: a body over 512 KB handed over in place arrives exactly, page after page, and is released`, async () => {
    await withNode({ protocolVersion: version }, largePages);
  });
}
