/**
 * Memory after a burst of large results (issue #17): the core's byte buffers shrink back
 * (each keeps at most 512 KB, core/src/connection.rs BUFFER_KEEP, and large request bodies
 * are not pooled),
 * and the WASM linear memory, which WebAssembly can only grow, stops at the peak a burst
 * needs: later bursts of the same size reuse it instead of stacking on top, and that peak is
 * bounded by the result's size (a large frame is kept in pieces while it arrives and put
 * together once, not grown into by doubling; it moves to the event arena without a copy).
 */
import { assert, assertEquals, client } from "./helpers.ts";

const KS = "perf_memory";
const ROWS = 12;
const BLOB = 1 << 20;
const MB = 2 ** 20;

Deno.test("after a 12 MB result the core's buffers are back under 4 MB and WASM memory is reused", async () => {
  const c = client();
  try {
    await c.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.big (k int PRIMARY KEY, v blob)`);
    for (let k = 0; k < ROWS; k++) {
      await c.execute(`INSERT INTO ${KS}.big (k, v) VALUES (?, ?)`, [k, new Uint8Array(BLOB).fill(k)], { prepare: true });
    }
    const readAll = async () => {
      const rs = await c.execute(`SELECT k, v FROM ${KS}.big`, [], { prepare: true, fetchSize: 100 });
      assertEquals(rs.rows.length, ROWS);
      for (const row of rs.rows) {
        const v = row.v as Uint8Array;
        assertEquals([v.length, v[0], v[BLOB - 1]], [BLOB, row.k, row.k]);
      }
    };
    const before = c.getMemoryStats();
    assert(before.coreBufferBytes < 4 * MB, `core buffers before: ${before.coreBufferBytes}`);

    await readAll();
    const first = c.getMemoryStats();
    // The whole result went through the core: its memory grew past the result's size...
    assert(first.wasmMemoryBytes > ROWS * BLOB, `WASM memory after the burst: ${first.wasmMemoryBytes}`);
    // ...and its buffers gave it back once the result was handed over.
    assert(first.coreBufferBytes < 4 * MB, `core buffers after the burst: ${first.coreBufferBytes} bytes`);

    // The allocator settles on the second burst; later ones reuse that memory.
    await readAll();
    const settled = c.getMemoryStats();
    for (let i = 0; i < 4; i++) await readAll();
    const later = c.getMemoryStats();
    assert(later.coreBufferBytes < 4 * MB, `core buffers after six bursts: ${later.coreBufferBytes} bytes`);
    assert(
      later.wasmMemoryBytes <= settled.wasmMemoryBytes * 1.25,
      `WASM memory grew from ${settled.wasmMemoryBytes} to ${later.wasmMemoryBytes} over four more bursts of the same size`,
    );
    // What the bursts left behind, over the result's size: 4.1 when the input buffer, the
    // v5 reassembly buffer and the hand-over copy each grew by doubling and the body was
    // copied into the event arena; 3.3 now (the pieces, the put-together frame and the copy
    // handed to JavaScript, with the allocator's fragmentation).
    const growth = (later.wasmMemoryBytes - before.wasmMemoryBytes) / (ROWS * BLOB);
    assert(growth <= 3.6, `WASM memory grew by ${growth.toFixed(2)}x the result over six bursts of ${ROWS * BLOB} bytes`);
  } finally {
    await c.shutdown();
  }
});

Deno.test("getMemoryStats before connecting and after shutdown: no core buffers, the module's memory", async () => {
  const c = client();
  const idle = c.getMemoryStats();
  assertEquals(idle.coreBufferBytes, 0);
  assert(idle.wasmMemoryBytes > 0 && idle.wasmMemoryBytes % 65536 === 0, `WASM memory: ${idle.wasmMemoryBytes}`);
  await c.connect();
  await c.shutdown();
  assertEquals(c.getMemoryStats().coreBufferBytes, 0);
});
