/**
 * driver/transport/deno.ts's writes against a loopback listener that reads only when told:
 * an idle socket's write returns nothing (no promise on a lone request's path); bytes given
 * while a write is in progress wait and arrive after it, in order and whole, even when the
 * kernel takes the first write in parts; the waiting promise settles on close; every read is
 * handed over with its own bytes, also when reads of one size reuse their view.
 */
import { assertExact } from "../exact.mjs";
import { denoSocketFactory } from "../../driver/transport/deno.ts";
import type { CqlSocket } from "../../driver/src/socket.ts";

/** Bytes `i` of a pattern that shows reordering and loss. */
function pattern(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return out;
}

async function withPair(
  body: (socket: CqlSocket, peer: Deno.Conn, closed: Promise<Error | undefined>) => Promise<void>,
  onData: (chunk: Uint8Array) => void = () => {},
): Promise<void> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = listener.accept();
  let onClose!: (e: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((resolve) => (onClose = resolve));
  const socket = await denoSocketFactory(
    { host: "127.0.0.1", port: (listener.addr as Deno.NetAddr).port, connectTimeoutMs: 5000 },
    { onData, onClose: (e) => onClose(e) },
  );
  const peer = await accepted;
  try {
    await body(socket, peer, closed);
  } finally {
    socket.close();
    try {
      peer.close();
    } catch {
      // Closed by the test.
    }
    listener.close();
  }
}

async function readExactly(peer: Deno.Conn, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let at = 0;
  while (at < length) {
    const n = await peer.read(out.subarray(at));
    if (n === null) throw new Error(`the connection ended after ${at} of ${length} bytes`);
    at += n;
  }
  return out;
}

Deno.test("deno transport: an idle socket's write returns nothing; bytes given during a write follow it whole and in order", async () => {
  await withPair(async (socket, peer) => {
    // Far more than loopback's socket buffers: the kernel takes it in parts while the peer reads.
    const first = pattern(16 * 1024 * 1024, 1);
    const second = pattern(100_000, 2);
    const third = pattern(3, 3);
    const idle = socket.write(first);
    const waiting = socket.write(second);
    const joined = socket.write(third);
    const all = await readExactly(peer, first.length + second.length + third.length);
    await waiting;
    assertExact([idle, waiting instanceof Promise, joined === waiting], [undefined, true, true]);
    assertExact(all.subarray(0, first.length), first);
    assertExact(all.subarray(first.length, first.length + second.length), second);
    assertExact(all.subarray(first.length + second.length), third);
    // Idle again once everything went: the next write is a plain call.
    const again = pattern(10, 4);
    assertExact(socket.write(again), undefined);
    assertExact(await readExactly(peer, again.length), again);
  });
});

Deno.test("deno transport: bytes waiting behind a write settle their promise when the socket closes", async () => {
  await withPair(async (socket, _peer, closed) => {
    socket.write(pattern(16 * 1024 * 1024, 5));
    const waiting = socket.write(pattern(10, 6)) as Promise<void>;
    socket.close();
    const outcome = await waiting.then(() => "resolved", (e: Error) => `${e.constructor.name}: ${e.message}`);
    // The write in progress fails on the closed resource, and so do the bytes behind it; the
    // close was this side's, so the socket reports no error.
    assertExact([outcome, await closed], ["BadResource: Bad resource ID", undefined]);
  });
});

Deno.test("deno transport: each read is handed over with its own bytes, reads of one size too", async () => {
  const chunks: Uint8Array[] = [];
  let arrived: () => void = () => {};
  // The chunk is only valid during the call: copied there, as the session does.
  const onData = (chunk: Uint8Array) => {
    chunks.push(chunk.slice());
    arrived();
  };
  await withPair(async (_socket, peer) => {
    const sent = [pattern(5, 7), pattern(5, 8), pattern(3, 9), pattern(5, 10)];
    for (const bytes of sent) {
      const got = new Promise<void>((resolve) => (arrived = resolve));
      await peer.write(bytes);
      // One write at a time, each read before the next write: one read per write.
      await got;
    }
    assertExact(chunks, sent);
  }, onData);
});
