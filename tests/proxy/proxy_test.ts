/**
 * The fault proxy on its own, between a raw TCP client and a scripted fake server: no
 * Cassandra needed. `deno test -A tests/proxy/`.
 */
import { FaultProxy, serveControl } from "./proxy.ts";
import { RemoteProxy } from "./remote.ts";
import { envelope, ENVELOPE_HEADER_BYTES, Opcode, readEnvelopeHeader } from "./cql.ts";
import { assertExact } from "../exact.mjs";
import { concat } from "../fakenode/bytes.ts";

function assert(cond: unknown, message = "assertion failed"): asserts cond {
  if (!cond) throw new Error(message);
}

function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  assertExact(actual, expected, message);
}

/** A TCP server whose reaction to each chunk (or each request envelope) the test scripts. */
class FakeServer {
  private listener: Deno.Listener;
  received: Uint8Array[] = [];
  conns: Deno.Conn[] = [];
  private constructor(listener: Deno.Listener, private onBytes: (conn: Deno.Conn, bytes: Uint8Array, server: FakeServer) => Promise<void>) {
    this.listener = listener;
    this.loop();
  }

  static start(onBytes: (conn: Deno.Conn, bytes: Uint8Array, server: FakeServer) => Promise<void>): FakeServer {
    return new FakeServer(Deno.listen({ hostname: "127.0.0.1", port: 0 }), onBytes);
  }

  get port(): number {
    return (this.listener.addr as Deno.NetAddr).port;
  }

  get receivedBytes(): Uint8Array {
    return concat(this.received);
  }

  private async loop(): Promise<void> {
    try {
      for await (const conn of this.listener) {
        this.conns.push(conn);
        (async () => {
          const buf = new Uint8Array(65536);
          try {
            for (;;) {
              const n = await conn.read(buf);
              if (n === null) break;
              const bytes = buf.slice(0, n);
              this.received.push(bytes);
              await this.onBytes(conn, bytes, this);
            }
          } catch {
            // The proxy closed or reset us.
          }
        })();
      }
    } catch {
      // Listener closed.
    }
  }

  close(): void {
    for (const c of this.conns) {
      try {
        c.close();
      } catch {
        // Already closed.
      }
    }
    this.listener.close();
  }
}

/** Reacts to whole request envelopes (v4 framing), however the bytes arrive. */
function envelopeServer(answer: (h: ReturnType<typeof readEnvelopeHeader>, body: Uint8Array) => Uint8Array[]) {
  const pending = new Map<Deno.Conn, Uint8Array>();
  return async (conn: Deno.Conn, bytes: Uint8Array) => {
    let buf = concat([pending.get(conn) ?? new Uint8Array(0), bytes]);
    while (buf.length >= ENVELOPE_HEADER_BYTES) {
      const h = readEnvelopeHeader(buf);
      const end = ENVELOPE_HEADER_BYTES + h.bodyLength;
      if (buf.length < end) break;
      for (const out of answer(h, buf.slice(ENVELOPE_HEADER_BYTES, end))) await conn.write(out);
      buf = buf.slice(end);
    }
    pending.set(conn, buf);
  };
}

async function readExactly(conn: Deno.Conn, n: number, timeoutMs = 5000): Promise<Uint8Array> {
  const out = new Uint8Array(n);
  let got = 0;
  const deadline = Date.now() + timeoutMs;
  while (got < n) {
    if (Date.now() > deadline) throw new Error(`read ${got} of ${n} bytes before the deadline`);
    const r = await conn.read(out.subarray(got));
    if (r === null) throw new Error(`EOF after ${got} of ${n} bytes`);
    got += r;
  }
  return out;
}

/** Reads until EOF or an error; returns the bytes and how the stream ended. */
async function readToEnd(conn: Deno.Conn): Promise<{ bytes: Uint8Array; end: "eof" | string; reads: number }> {
  const parts: Uint8Array[] = [];
  const buf = new Uint8Array(65536);
  let reads = 0;
  for (;;) {
    try {
      const n = await conn.read(buf);
      if (n === null) return { bytes: concat(parts), end: "eof", reads };
      reads++;
      parts.push(buf.slice(0, n));
    } catch (e) {
      return { bytes: concat(parts), end: (e as Error).name, reads };
    }
  }
}

const echo = async (conn: Deno.Conn, bytes: Uint8Array) => void await conn.write(bytes);

async function withProxy(server: FakeServer, body: (proxy: FaultProxy) => Promise<void>): Promise<void> {
  const proxy = await FaultProxy.start({ target: { host: "127.0.0.1", port: server.port } });
  try {
    await body(proxy);
  } finally {
    await proxy.close();
    server.close();
  }
}

function connect(proxy: { port: number }): Promise<Deno.TcpConn> {
  return Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

// ---- plain TCP faults ----------------------------------------------------------------------------

Deno.test("proxy forwards both ways and counts the bytes", async () => {
  await withProxy(FakeServer.start(echo), async (proxy) => {
    const c = await connect(proxy);
    const data = new Uint8Array(200_000).map((_, i) => i % 251);
    await c.write(data);
    const back = await readExactly(c, data.length);
    assertEquals(back.every((b, i) => b === data[i]), true, "echo intact");
    const s = proxy.stats();
    assertEquals([s.bytesToServer, s.bytesToClient, s.connectionsAccepted], [200_000, 200_000, 1]);
    c.close();
  });
});

Deno.test("latency delays each chunk in each direction", async () => {
  await withProxy(FakeServer.start(echo), async (proxy) => {
    const c = await connect(proxy);
    await c.write(Uint8Array.of(1));
    await readExactly(c, 1);
    proxy.setRules({ latencyMs: 150 });
    const t0 = performance.now();
    await c.write(Uint8Array.of(2));
    await readExactly(c, 1);
    const rtt = performance.now() - t0;
    assert(rtt >= 295, `round trip ${rtt.toFixed(0)} ms under 2 × 150 ms`);
    proxy.clearRules();
    const t1 = performance.now();
    await c.write(Uint8Array.of(3));
    await readExactly(c, 1);
    assert(performance.now() - t1 < 100, "latency gone once cleared");
    c.close();
  });
});

Deno.test("stall holds bytes until lifted, in order", async () => {
  await withProxy(FakeServer.start(echo), async (proxy) => {
    const c = await connect(proxy);
    await c.write(Uint8Array.of(0));
    await readExactly(c, 1);
    proxy.setRules({ stall: true });
    await c.write(Uint8Array.of(1, 2, 3));
    await sleep(200);
    assertEquals(proxy.stats().bytesToServer, 1, "nothing forwarded while stalled");
    proxy.clearRules();
    assertEquals([...await readExactly(c, 3)], [1, 2, 3]);
    c.close();
  });
});

Deno.test("stall in one direction: requests pass, responses wait", async () => {
  await withProxy(FakeServer.start(echo), async (proxy) => {
    const c = await connect(proxy);
    proxy.setRules({ stall: "toClient" });
    await c.write(Uint8Array.of(7, 8));
    await eventually("bytes at the server", () => proxy.stats().bytesToServer === 2);
    await sleep(100);
    assertEquals(proxy.stats().bytesToClient, 0);
    proxy.setRules({});
    assertEquals([...await readExactly(c, 2)], [7, 8]);
    c.close();
  });
});

Deno.test("cut after N server bytes with a close: exactly N bytes, then EOF", async () => {
  const payload = new Uint8Array(10_000).map((_, i) => i & 0xff);
  await withProxy(FakeServer.start(async (conn) => void await conn.write(payload)), async (proxy) => {
    proxy.setRules({ cut: { direction: "toClient", afterBytes: 1234, how: "close" } });
    const c = await connect(proxy);
    await c.write(Uint8Array.of(1));
    const r = await readToEnd(c);
    assertEquals([r.bytes.length, r.end], [1234, "eof"]);
    assertEquals(proxy.stats().cuts, { close: 1, reset: 0 });
    c.close();
  });
});

Deno.test("cut after N client bytes with a reset: the client sees ECONNRESET", async () => {
  const server = FakeServer.start(async () => {});
  await withProxy(server, async (proxy) => {
    proxy.setRules({ cut: { direction: "toServer", afterBytes: 10, how: "reset" } });
    const c = await connect(proxy);
    await c.write(new Uint8Array(25).fill(9));
    const r = await readToEnd(c);
    assertEquals(r.end, "ConnectionReset");
    await eventually("the server saw its bytes", () => server.receivedBytes.length === 10);
    await sleep(50);
    assertEquals(server.receivedBytes.length, 10, "nothing past the cut reached the server");
    assertEquals(proxy.stats().cuts, { close: 0, reset: 1 });
  });
});

Deno.test("a global cut applies to each new connection from its own first byte", async () => {
  await withProxy(FakeServer.start(echo), async (proxy) => {
    proxy.setRules({ cut: { direction: "toClient", afterBytes: 5, how: "close" } });
    for (let i = 0; i < 3; i++) {
      const c = await connect(proxy);
      await c.write(new Uint8Array(8).fill(i));
      const r = await readToEnd(c);
      assertEquals([r.bytes.length, r.end], [5, "eof"], `connection ${i}`);
      c.close();
    }
    assertEquals(proxy.stats().cuts.close, 3);
  });
});

Deno.test("one-byte writes: every byte alone, the stream intact", async () => {
  const payload = new Uint8Array(300).map((_, i) => (i * 7) & 0xff);
  await withProxy(FakeServer.start(async (conn) => void await conn.write(payload)), async (proxy) => {
    proxy.setRules({ oneByteWrites: "toClient", cut: { direction: "toClient", afterBytes: 300, how: "close" } });
    const c = await connect(proxy);
    await c.write(Uint8Array.of(1));
    const r = await readToEnd(c);
    assertEquals([...r.bytes], [...payload]);
    assertEquals(proxy.stats().oneByteWrites, 300);
    // The reader is not guaranteed one byte per read, but it must have been cut up.
    assert(r.reads > 10, `only ${r.reads} reads for 300 single-byte segments`);
  });
});

Deno.test("closeConnection resets one connection; the others go on", async () => {
  await withProxy(FakeServer.start(echo), async (proxy) => {
    const a = await connect(proxy);
    const b = await connect(proxy);
    await a.write(Uint8Array.of(1));
    await b.write(Uint8Array.of(2));
    await readExactly(a, 1);
    await readExactly(b, 1);
    const [first] = proxy.openConnections();
    assert(proxy.closeConnection(first.id, "reset"));
    const ra = await readToEnd(a);
    assertEquals(ra.end, "ConnectionReset");
    await b.write(Uint8Array.of(3));
    assertEquals([...await readExactly(b, 1)], [3]);
    b.close();
  });
});

// ---- CQL-aware faults ------------------------------------------------------------------------------

const RESULT_VOID = Uint8Array.of(0, 0, 0, 1);

/** A v4 server: READY to STARTUP, RESULT Void to everything else. */
function v4Server(): FakeServer {
  return FakeServer.start(envelopeServer((h) => {
    const version = 0x80 | h.version;
    if (h.opcode === Opcode.STARTUP) return [envelope(version, h.stream, Opcode.READY, new Uint8Array(0))];
    return [envelope(version, h.stream, Opcode.RESULT, RESULT_VOID)];
  }));
}

const enc = new TextEncoder();

function longString(s: string): Uint8Array {
  const b = enc.encode(s);
  const out = new Uint8Array(4 + b.length);
  new DataView(out.buffer).setInt32(0, b.length);
  out.set(b, 4);
  return out;
}

function queryBody(cql: string): Uint8Array {
  return concat([longString(cql), Uint8Array.of(0, 1, 0)]);
}

function startupBody(): Uint8Array {
  const k = enc.encode("CQL_VERSION");
  const v = enc.encode("3.0.0");
  return concat([Uint8Array.of(0, 1, 0, k.length), k, Uint8Array.of(0, v.length), v]);
}

async function readEnvelope(c: Deno.Conn): Promise<{ h: ReturnType<typeof readEnvelopeHeader>; body: Uint8Array }> {
  const head = await readExactly(c, ENVELOPE_HEADER_BYTES);
  const h = readEnvelopeHeader(head);
  return { h, body: await readExactly(c, h.bodyLength) };
}

/** The error fields as the protocol lays them out: code, message, then the code's own. */
function decodeError(body: Uint8Array): Record<string, unknown> {
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 0;
  const int = () => (at += 4, v.getInt32(at - 4));
  const short = () => (at += 2, v.getUint16(at - 2));
  const str = () => {
    const n = short();
    at += n;
    return new TextDecoder().decode(body.subarray(at - n, at));
  };
  const out: Record<string, unknown> = { code: int(), message: str() };
  if (out.code === 0x1000) Object.assign(out, { cl: short(), required: int(), alive: int() });
  if (out.code === 0x1100) Object.assign(out, { cl: short(), received: int(), blockFor: int(), writeType: str() });
  if (out.code === 0x1200) Object.assign(out, { cl: short(), received: int(), blockFor: int(), dataPresent: body[at++] });
  assertEquals(at, body.length, "no bytes left over in the error body");
  return out;
}

Deno.test("replace: the Nth eligible RESULT becomes an ERROR with every field, same stream", async () => {
  await withProxy(v4Server(), async (proxy) => {
    const c = await connect(proxy);
    await c.write(envelope(0x04, 0, Opcode.STARTUP, startupBody()));
    assertEquals((await readEnvelope(c)).h.opcode, Opcode.READY);
    const cases = [
      { name: "Overloaded" as const },
      { name: "IsBootstrapping" as const },
      { name: "Unavailable" as const, consistency: 4, required: 2, alive: 1 },
      { name: "WriteTimeout" as const, consistency: 4, received: 1, blockFor: 2, writeType: "SIMPLE" },
      { name: "ReadTimeout" as const, consistency: 1, received: 1, blockFor: 1, dataPresent: false },
    ];
    const expected = [
      { code: 0x1001 },
      { code: 0x1002 },
      { code: 0x1000, cl: 4, required: 2, alive: 1 },
      { code: 0x1100, cl: 4, received: 1, blockFor: 2, writeType: "SIMPLE" },
      { code: 0x1200, cl: 1, received: 1, blockFor: 1, dataPresent: 0 },
    ];
    for (let i = 0; i < cases.length; i++) {
      // The second QUERY after the rule is set gets replaced (skip: 1).
      proxy.setRules({ replace: { error: cases[i], skip: 1, requestOpcodes: ["QUERY"] } });
      await c.write(envelope(0x04, 10 + i, Opcode.QUERY, queryBody("SELECT 1")));
      const first = await readEnvelope(c);
      assertEquals([first.h.opcode, first.h.stream], [Opcode.RESULT, 10 + i]);
      await c.write(envelope(0x04, 300 + i, Opcode.QUERY, queryBody("SELECT 2")));
      const second = await readEnvelope(c);
      assertEquals([second.h.versionByte, second.h.opcode, second.h.stream], [0x84, Opcode.ERROR, 300 + i]);
      const { message, ...fields } = decodeError(second.body);
      assertEquals(fields, expected[i], cases[i].name);
      assert(String(message).includes(cases[i].name));
      await c.write(envelope(0x04, 600 + i, Opcode.QUERY, queryBody("SELECT 3")));
      assertEquals((await readEnvelope(c)).h.opcode, Opcode.RESULT, "times defaults to 1");
    }
    assertEquals(proxy.stats().replaced, { Overloaded: 1, IsBootstrapping: 1, Unavailable: 1, WriteTimeout: 1, ReadTimeout: 1 });
    c.close();
  });
});

Deno.test("replace filters by request opcode and can replace every response", async () => {
  await withProxy(v4Server(), async (proxy) => {
    const c = await connect(proxy);
    await c.write(envelope(0x04, 0, Opcode.STARTUP, startupBody()));
    await readEnvelope(c);
    proxy.setRules({ replace: { error: { name: "Overloaded" }, times: -1, requestOpcodes: ["EXECUTE"] } });
    await c.write(envelope(0x04, 1, Opcode.QUERY, queryBody("SELECT 1")));
    assertEquals((await readEnvelope(c)).h.opcode, Opcode.RESULT, "QUERY not eligible");
    for (let i = 0; i < 5; i++) {
      await c.write(envelope(0x04, 2 + i, Opcode.EXECUTE, concat([Uint8Array.of(0, 1, 0xaa, 0, 1, 0)])));
      assertEquals((await readEnvelope(c)).h.opcode, Opcode.ERROR);
    }
    assertEquals(proxy.stats().replaced.Overloaded, 5);
    c.close();
  });
});

Deno.test("corrupt v4 header fields of the chosen response", async () => {
  for (const [target, offset] of [["version", 0], ["flags", 1], ["stream", 2], ["opcode", 4], ["length", 5]] as const) {
    await withProxy(v4Server(), async (proxy) => {
      const c = await connect(proxy);
      await c.write(envelope(0x04, 0, Opcode.STARTUP, startupBody()));
      await readEnvelope(c);
      proxy.setRules({ corrupt: { target, skipFrames: 1 } });
      await c.write(envelope(0x04, 1, Opcode.QUERY, queryBody("SELECT 1")));
      const intact = await readExactly(c, ENVELOPE_HEADER_BYTES + 4);
      assertEquals([...intact.subarray(0, 5)], [0x84, 0, 0, 1, Opcode.RESULT], `${target}: first frame skipped`);
      await c.write(envelope(0x04, 2, Opcode.QUERY, queryBody("SELECT 2")));
      const spoiled = await readExactly(c, ENVELOPE_HEADER_BYTES + 4);
      const original = envelope(0x84, 2, Opcode.RESULT, RESULT_VOID);
      const diff = [...spoiled].flatMap((b, i) => (b !== original[i] ? [i] : []));
      assertEquals(diff, [offset], target);
      assertEquals(spoiled[offset], original[offset] ^ 0xff);
      c.close();
    });
  }
});

Deno.test("corrupt at stream offsets and at random, reproducibly", async () => {
  const payload = new Uint8Array(4000).fill(0x55);
  const run = async (rule: Parameters<FaultProxy["setRules"]>[0]) => {
    let got: Uint8Array = new Uint8Array(0);
    await withProxy(FakeServer.start(async (conn) => void await conn.write(payload)), async (proxy) => {
      proxy.setRules({ ...rule, cut: { direction: "toClient", afterBytes: payload.length, how: "close" } });
      const c = await connect(proxy);
      await c.write(Uint8Array.of(1));
      got = (await readToEnd(c)).bytes;
    });
    return [...got].flatMap((b, i) => (b !== 0x55 ? [i] : []));
  };
  assertEquals(await run({ corrupt: { offsets: [0, 17, 3999] } }), [0, 17, 3999]);
  const a = await run({ corrupt: { probability: 0.01, seed: 42 } });
  const b = await run({ corrupt: { probability: 0.01, seed: 42 } });
  assert(a.length > 10 && a.length < 100, `${a.length} random flips in 4000 bytes at p=0.01`);
  assertEquals(a, b, "the same seed gives the same flips");
});

/** A v5 server: READY (v5), then frames with made-up CRCs (the proxy does not check them). */
function v5Server(frames: Uint8Array[]): FakeServer {
  return FakeServer.start(envelopeServerOnce((h) => {
    if (h.opcode === Opcode.STARTUP) return [concat([envelope(0x85, h.stream, Opcode.READY, new Uint8Array(0)), ...frames])];
    return [];
  }));
}

function envelopeServerOnce(answer: (h: ReturnType<typeof readEnvelopeHeader>) => Uint8Array[]) {
  let done = false;
  return envelopeServer((h) => {
    if (done) return [];
    done = true;
    return answer(h);
  });
}

/** An uncompressed v5 frame: 3 header bytes (length | self-contained), CRC24, payload, CRC32. */
function v5Frame(payload: Uint8Array, crc24: number[], crc32: number[]): Uint8Array {
  const word = payload.length | 0x20000;
  return concat([Uint8Array.of(word & 0xff, (word >> 8) & 0xff, word >> 16), Uint8Array.from(crc24), payload, Uint8Array.from(crc32)]);
}

Deno.test("v5: after READY the proxy follows frames and spoils the CRC24 or CRC32 it is told to", async () => {
  const payload = envelope(0x85, 1, Opcode.RESULT, RESULT_VOID);
  const frame = v5Frame(payload, [1, 2, 3], [4, 5, 6, 7]);
  const frameLen = frame.length;
  for (const [target, offset] of [["crc24", 3], ["crc32", 6 + payload.length], ["segment-length", 0]] as const) {
    await withProxy(v5Server([frame, frame]), async (proxy) => {
      proxy.setRules({ corrupt: { target, skipFrames: 1 } });
      const c = await connect(proxy);
      await c.write(envelope(0x05, 0, Opcode.STARTUP, startupBody()));
      const ready = await readExactly(c, ENVELOPE_HEADER_BYTES);
      assertEquals(readEnvelopeHeader(ready).opcode, Opcode.READY);
      const first = await readExactly(c, frameLen);
      assertEquals([...first], [...frame], `${target}: the first frame passes`);
      const second = await readExactly(c, frameLen);
      const diff = [...second].flatMap((b, i) => (b !== frame[i] ? [i] : []));
      assertEquals(diff, [offset], target);
      assertEquals(proxy.connections()[0].framing, "v5-frames");
      assertEquals(proxy.stats().responses, { READY: 1, RESULT: 2 }, "envelopes inside frames are counted");
      c.close();
    });
  }
});

Deno.test("v5: envelope targets and replacement are reported as not applicable, bytes untouched", async () => {
  const payload = envelope(0x85, 1, Opcode.RESULT, RESULT_VOID);
  const frame = v5Frame(payload, [1, 2, 3], [4, 5, 6, 7]);
  await withProxy(v5Server([frame]), async (proxy) => {
    proxy.setRules({ corrupt: { target: "opcode" } });
    const c = await connect(proxy);
    await c.write(envelope(0x05, 0, Opcode.STARTUP, startupBody()));
    await readExactly(c, ENVELOPE_HEADER_BYTES);
    // The proxy only learns of stream 1 as a request if the client sent it; it did not,
    // so the replace rule has nothing to answer; the corrupt rule meets a framed envelope.
    assertEquals([...await readExactly(c, frame.length)], [...frame]);
    assertEquals(proxy.stats().notApplicable, { "corrupt opcode on v5 frames": 1 });
    c.close();
  });
});

Deno.test("fake auth: READY becomes AUTHENTICATE; the proxy answers AUTH_RESPONSE itself", async () => {
  const server = v4Server();
  await withProxy(server, async (proxy) => {
    proxy.setRules({ fakeAuth: { username: "alice", password: "s3cret" } });
    for (const [password, expected] of [["s3cret", Opcode.AUTH_SUCCESS], ["wrong", Opcode.ERROR]] as const) {
      const c = await connect(proxy);
      await c.write(envelope(0x04, 0, Opcode.STARTUP, startupBody()));
      const auth = await readEnvelope(c);
      assertEquals(auth.h.opcode, Opcode.AUTHENTICATE);
      assert(new TextDecoder().decode(auth.body).includes("PasswordAuthenticator"));
      const token = enc.encode(`\0alice\0${password}`);
      const body = new Uint8Array(4 + token.length);
      new DataView(body.buffer).setInt32(0, token.length);
      body.set(token, 4);
      await c.write(envelope(0x04, 1, Opcode.AUTH_RESPONSE, body));
      const answer = await readEnvelope(c);
      assertEquals([answer.h.opcode, answer.h.stream], [expected, 1], password);
      if (expected === Opcode.ERROR) assertEquals(decodeError(answer.body).code, 0x0100);
      c.close();
    }
    // The real server never saw an AUTH_RESPONSE (opcode 0x0f at byte 4 of a header).
    const seen = server.receivedBytes;
    let at = 0;
    while (at + ENVELOPE_HEADER_BYTES <= seen.length) {
      const h = readEnvelopeHeader(seen.subarray(at));
      assert(h.opcode !== Opcode.AUTH_RESPONSE, "AUTH_RESPONSE reached the server");
      at += ENVELOPE_HEADER_BYTES + h.bodyLength;
    }
    assertEquals(proxy.stats().fakeAuth, { accepted: 1, refused: 1 });
  });
});

function shortBytes(b: Uint8Array): Uint8Array {
  return concat([Uint8Array.of(b.length >> 8, b.length & 0xff), b]);
}

function executeBody(id: Uint8Array, values: Uint8Array[]): Uint8Array {
  const parts = [shortBytes(id), Uint8Array.of(0, 1, 0x01, 0, values.length)];
  for (const v of values) {
    const len = new Uint8Array(4);
    new DataView(len.buffer).setInt32(0, v.length);
    parts.push(len, v);
  }
  return concat(parts);
}

Deno.test("key tap: rows of the tapped statement, resends counted as duplicates; in-flight peak", async () => {
  const id = Uint8Array.of(0xca, 0xfe);
  const server = FakeServer.start(envelopeServer((h) => {
    if (h.opcode === Opcode.PREPARE) return [envelope(0x84, h.stream, Opcode.RESULT, concat([Uint8Array.of(0, 0, 0, 4), shortBytes(id)]))];
    return [envelope(0x84, h.stream, Opcode.RESULT, RESULT_VOID)];
  }));
  await withProxy(server, async (proxy) => {
    proxy.tapKeys({ statementContains: "INSERT INTO ks.t", valueIndex: 0 });
    const c = await connect(proxy);
    await c.write(envelope(0x04, 1, Opcode.PREPARE, longString("INSERT INTO ks.t (k, v) VALUES (?, ?)")));
    await readEnvelope(c);
    const batch: Uint8Array[] = [];
    for (const k of [1, 2, 3, 2, 1, 4]) {
      batch.push(envelope(0x04, 10 + batch.length, Opcode.EXECUTE, executeBody(id, [Uint8Array.of(k), Uint8Array.of(9)])));
    }
    // Six requests in one write: all six are in flight at once.
    await c.write(concat(batch));
    for (let i = 0; i < 6; i++) await readEnvelope(c);
    const s = proxy.stats();
    assertEquals(s.keys, { sent: 6, distinct: 4, duplicates: 2 });
    assertEquals(proxy.keysSeen().get("01"), 2);
    assertEquals([s.inFlight, s.peakInFlight], [0, 6]);
    c.close();
  });
});

// ---- control from other processes ------------------------------------------------------------------

Deno.test("HTTP control API sets rules and reports stats", async () => {
  await withProxy(FakeServer.start(echo), async (proxy) => {
    const control = serveControl(proxy);
    const base = `http://127.0.0.1:${control.port}`;
    try {
      const put = await fetch(`${base}/rules`, { method: "PUT", body: JSON.stringify({ stall: true }) });
      assertEquals(await put.json(), { ok: true });
      const c = await connect(proxy);
      await c.write(Uint8Array.of(5));
      await sleep(100);
      assertEquals((await (await fetch(`${base}/stats`)).json()).bytesToServer, 0);
      await (await fetch(`${base}/rules`, { method: "DELETE" })).body?.cancel();
      assertEquals([...await readExactly(c, 1)], [5]);
      const conns = await (await fetch(`${base}/connections`)).json();
      assertEquals(conns.length, 1);
      const closed = await fetch(`${base}/connections/${conns[0].id}/close`, { method: "POST", body: '{"how":"reset"}' });
      assertEquals(await closed.json(), { ok: true });
      assertEquals((await readToEnd(c)).end, "ConnectionReset");
      const bad = await fetch(`${base}/nowhere`);
      assertEquals(bad.status, 404);
      await bad.body?.cancel();
    } finally {
      await control.shutdown();
    }
  });
});

Deno.test("RemoteProxy runs the proxy in a child process", async () => {
  const server = FakeServer.start(echo);
  const remote = await RemoteProxy.start(`127.0.0.1:${server.port}`);
  try {
    await remote.setRules({ latencyMs: 100 });
    const c = await connect(remote);
    const t0 = performance.now();
    await c.write(Uint8Array.of(1, 2));
    assertEquals([...await readExactly(c, 2)], [1, 2]);
    assert(performance.now() - t0 >= 195, "latency applied in the child");
    const s = await remote.stats();
    assertEquals([s.bytesToServer, s.bytesToClient], [2, 2]);
    c.close();
  } finally {
    await remote.close();
    server.close();
  }
});
