/**
 * One client connection to the fake node: reads envelopes (unframed during the handshake,
 * inside v5 frames after READY/AUTHENTICATE when v5 was started), hands each request to the
 * node, and writes replies in the framing the connection is in.
 */
import type { Socket } from "node:net";
import { concat } from "./bytes.ts";
import {
  type Compression,
  decompressV4Body,
  encodeEnvelope,
  type Envelope,
  FLAG_COMPRESSION,
  frameEnvelopeBytes,
  takeEnvelope,
  takeSegments,
} from "./framing.ts";
import { Op } from "./opcodes.ts";

/** Requests the connection waits on before reading further: they may switch the framing. */
const HANDSHAKE_OPS: number[] = [Op.OPTIONS, Op.STARTUP, Op.AUTH_RESPONSE];

export class FakeConnection {
  version = 0;
  compression: Compression = "none";
  /** v5 framing is on (after READY or AUTHENTICATE on a v5 connection). */
  framed = false;
  registered = false;
  closed = false;
  readonly whenClosed: Promise<void>;
  private inbuf: Uint8Array = new Uint8Array(0);
  private envbuf: Uint8Array = new Uint8Array(0);
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly id: number,
    readonly socket: Socket,
    private onRequest: (conn: FakeConnection, env: Envelope) => Promise<void>,
  ) {
    let closed!: () => void;
    this.whenClosed = new Promise((r) => (closed = r));
    socket.on("data", (chunk: Uint8Array) => {
      this.queue = this.queue.then(() => this.onData(chunk)).catch((e) => this.fail(e));
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      this.closed = true;
      closed();
    });
  }

  private fail(e: unknown): void {
    // A request the node cannot read is the client's bug: record it loudly and hang up.
    console.error(`fake node connection ${this.id}: ${(e as Error).message}`);
    this.socket.destroy();
  }

  private async onData(chunk: Uint8Array): Promise<void> {
    this.inbuf = concat([this.inbuf, chunk]);
    for (;;) {
      const env = this.nextEnvelope();
      if (!env) return;
      if (env.flags & FLAG_COMPRESSION && !this.framed) env.body = decompressV4Body(this.compression, env.body);
      const handled = this.onRequest(this, env);
      if (HANDSHAKE_OPS.includes(env.opcode) && !this.framed) await handled;
    }
  }

  /** One envelope at a time: the rest stay buffered so a framing switch applies to them. */
  private nextEnvelope(): Envelope | undefined {
    if (!this.framed) {
      const { envelope, rest } = takeEnvelope(this.inbuf);
      this.inbuf = rest;
      return envelope;
    }
    const { payloads, rest } = takeSegments(this.inbuf, this.compression === "lz4");
    this.inbuf = rest;
    if (payloads.length) this.envbuf = concat([this.envbuf, ...payloads]);
    const { envelope, rest: left } = takeEnvelope(this.envbuf);
    this.envbuf = left;
    return envelope;
  }

  /** Writes one envelope's bytes in the connection's framing. */
  sendEnvelope(bytes: Uint8Array): void {
    this.write(this.framed ? frameEnvelopeBytes(bytes, this.compression === "lz4") : bytes);
  }

  send(env: Envelope): void {
    this.sendEnvelope(encodeEnvelope(env));
  }

  write(bytes: Uint8Array): void {
    if (this.trickle) return this.trickle(bytes);
    if (!this.closed && !this.socket.destroyed) this.socket.write(bytes);
  }

  /** Set while a trickled reply is written: takes its bytes instead of the socket. */
  trickle: ((bytes: Uint8Array) => void) | null = null;

  /**
   * Writes `bytes` one byte every `everyMs`, at most `limit` of them; resolves when done or
   * when the connection closes (its timer never outlives the connection).
   */
  async drip(bytes: Uint8Array, everyMs: number, limit = bytes.length): Promise<void> {
    for (let i = 0; i < Math.min(limit, bytes.length) && !this.closed && !this.socket.destroyed; i++) {
      this.socket.write(bytes.subarray(i, i + 1));
      await Promise.race([new Promise((r) => setTimeout(r, everyMs)), this.whenClosed]);
    }
  }

  close(): void {
    this.socket.end();
  }

  reset(): void {
    const s = this.socket as Socket & { resetAndDestroy?: () => void };
    if (typeof s.resetAndDestroy === "function") s.resetAndDestroy();
    else s.destroy();
  }
}
