/**
 * A fault-injection TCP proxy for cqlwire's tests, placed between a client and a real
 * Cassandra node. On command it adds latency, stalls, closes or resets a connection after N
 * bytes, writes one byte at a time, corrupts bytes (header fields of v4 envelopes, v5 CRCs,
 * chosen offsets or at random), replaces a response with a server ERROR, and can pose as a
 * PasswordAuthenticator. It parses both directions as CQL, so it also counts requests and
 * responses by opcode, requests in flight, and which rows (bound values) clients sent.
 *
 * Rules are plain JSON, set globally (every connection, present and future) or per
 * connection; the HTTP control API (`serveControl`) takes the same JSON, for tests whose
 * client runs in another process.
 *
 * Sockets are node:net rather than Deno.listen/Deno.connect because only node:net can
 * send a TCP reset on demand (`resetAndDestroy`); Deno's own sockets only close with a FIN.
 */
import {
  AUTH_SUCCESS_BODY,
  authenticateBody,
  encodeErrorFrame,
  envelope,
  ENVELOPE_HEADER_BYTES,
  type EnvelopeHeader,
  Opcode,
  opcodeName,
  readAuthToken,
  readBatch,
  readEnvelopeHeader,
  readExecute,
  readPreparedId,
  readPrepareText,
  readStartupOptions,
  readV5PayloadLength,
  type ServerErrorSpec,
  V5_TRAILER_BYTES,
  v5HeaderBytes,
} from "./cql.ts";

export type { ServerErrorSpec } from "./cql.ts";

// node:net's types come with @types/node, which this repository does not install, so the
// members used here are declared here and the module is imported by a computed name.
interface NetSocket {
  readonly destroyed: boolean;
  write(data: Uint8Array, callback?: (error?: Error) => void): boolean;
  end(): void;
  destroy(): void;
  resetAndDestroy(): void;
  pause(): void;
  resume(): void;
  isPaused(): boolean;
  setNoDelay(noDelay: boolean): void;
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "end" | "close" | "drain" | "connect" | "error", listener: () => void): void;
  once(event: "end" | "close" | "drain" | "connect" | "error", listener: () => void): void;
}
interface NetServer {
  listen(port: number, host: string, callback: () => void): void;
  close(callback: () => void): void;
  address(): { port: number };
  once(event: "error", listener: (error: Error) => void): void;
}
interface NetModule {
  createServer(options: { pauseOnConnect: boolean }, onConnection: (socket: NetSocket) => void): NetServer;
  connect(options: { host: string; port: number }): NetSocket;
}
const net: NetModule = await import(["node", "net"].join(":"));

/** toServer: client → server (requests); toClient: server → client (responses). */
export type Direction = "toServer" | "toClient";

export type CorruptTarget =
  | "version"
  | "flags"
  | "stream"
  | "opcode"
  | "length"
  | "crc24"
  | "crc32"
  | "segment-length";

export interface CorruptRule {
  /**
   * A field to spoil in the server→client stream: a v4 envelope header field (version,
   * flags, stream, opcode, length: its high byte, so the length becomes huge) before v5
   * framing starts or on v4 connections; or, on v5-framed connections, the frame header
   * CRC24, the payload CRC32 trailer, or the frame header's payload length.
   */
  target?: CorruptTarget;
  /** Frames (envelopes, or v5 frames for v5 targets) to let through first. Default 0. */
  skipFrames?: number;
  /** How many frames to spoil. Default 1; -1 for every one. */
  times?: number;
  /** XOR mask applied to the target byte. Default 0xff. */
  xor?: number;
  /** Byte offsets of the server→client stream, counted from when the rule reached the connection. */
  offsets?: number[];
  /** Flip each server→client byte with this probability (seeded, so reproducible). */
  probability?: number;
  seed?: number;
}

export interface ReplaceRule {
  error: ServerErrorSpec;
  /** RESULT frames to let through first. Default 0. */
  skip?: number;
  /** How many RESULTs to replace. Default 1; -1 for every one. */
  times?: number;
  /** Only RESULTs answering these request opcodes (e.g. ["EXECUTE"]). Default: any. */
  requestOpcodes?: string[];
  /** Replace each eligible RESULT with this probability (seeded). Default 1. */
  probability?: number;
  seed?: number;
}

export interface CutRule {
  direction: Direction;
  /** Bytes let through in `direction` (counted from when the rule reached the connection) before the cut. */
  afterBytes: number;
  /** close: FIN to the client; reset: RST to the client. The server side is closed either way. */
  how: "close" | "reset";
}

export interface FaultRules {
  /** Delay before each chunk is forwarded, both directions, in ms. */
  latencyMs?: number;
  /** Stop forwarding (both directions, or one); TCP pushes back on the senders until cleared. */
  stall?: boolean | Direction;
  /** Write one byte per socket write (both directions, or one); about 2 ms per byte. */
  oneByteWrites?: boolean | Direction;
  cut?: CutRule;
  corrupt?: CorruptRule;
  replace?: ReplaceRule;
  /**
   * Pose as a PasswordAuthenticator: the server's READY to STARTUP becomes AUTHENTICATE,
   * and the client's AUTH_RESPONSE is answered by the proxy (AUTH_SUCCESS if the
   * credentials match, else a 0x0100 bad-credentials ERROR). The real server needs no
   * authentication. Protocol v4 only (clients must pin it).
   */
  fakeAuth?: { username: string; password: string };
}

/** Which statements' bound values to record, to count rows sent and sent again. */
export interface KeyTap {
  /** The PREPARE text must contain this (or each of these), e.g. "INSERT INTO". */
  statementContains: string | string[];
  /** The bound value that identifies a row (0-based). */
  valueIndex: number;
}

export interface ConnectionInfo {
  id: number;
  open: boolean;
  framing: "envelopes" | "v5-frames";
  bytesToServer: number;
  bytesToClient: number;
  inFlight: number;
}

export interface ProxyStats {
  connectionsAccepted: number;
  connectionsOpen: number;
  bytesToServer: number;
  bytesToClient: number;
  /** Requests seen from clients, by opcode name. */
  requests: Record<string, number>;
  /** Responses seen from the server (before any replacement), by opcode name. */
  responses: Record<string, number>;
  inFlight: number;
  peakInFlight: number;
  replaced: Record<string, number>;
  corruptedBytes: number;
  corruptedFrames: number;
  cuts: { close: number; reset: number };
  oneByteWrites: number;
  fakeAuth: { accepted: number; refused: number };
  /** Rules that met a connection they cannot apply to (e.g. an envelope target on v5 frames). */
  notApplicable: Record<string, number>;
  keys: { sent: number; distinct: number; duplicates: number } | null;
}

// Forwarding pauses a source once this many bytes wait to be written to its peer.
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
const LOW_WATER_BYTES = 1024 * 1024;
// Bodies the proxy reads (EXECUTE values, PREPARE texts) are small; larger ones are not read.
const MAX_CAPTURED_BODY_BYTES = 1024 * 1024;

/** A small seeded PRNG (mulberry32): the same seed gives the same faults. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function appliesTo(setting: boolean | Direction | undefined, direction: Direction): boolean {
  return setting === true || setting === direction;
}

/** Live counters of one rule object, shared by every connection it applies to. */
class RuleState {
  replaceSeen = 0;
  replaced = 0;
  corruptSeen = 0;
  corrupted = 0;
  readonly replaceRandom: () => number;
  constructor(readonly rules: FaultRules) {
    this.replaceRandom = prng(rules.replace?.seed ?? 1);
  }
}

interface HeaderAction {
  /** Bytes to emit in place of the header (null drops it). */
  emit: Uint8Array | null;
  dropBody: boolean;
  captureBody: boolean;
}

const PASS: HeaderAction = { emit: null, dropBody: false, captureBody: false };

/**
 * Splits a byte stream into envelopes. Active (the proxy may edit or drop headers and
 * bodies) or passive (observing the payloads of v5 frames).
 */
class EnvelopeParser {
  private header = new Uint8Array(ENVELOPE_HEADER_BYTES);
  private fill = 0;
  /** Whether this header's bytes wait until it is whole (so it can be edited or dropped). */
  private holding = false;
  private current: EnvelopeHeader | null = null;
  private bodyLeft = 0;
  private dropBody = false;
  private capture: Uint8Array[] | null = null;
  private captured = 0;

  constructor(
    /** `editable` is false when the header's bytes already went out unchanged. */
    private onHeader: (h: EnvelopeHeader, raw: Uint8Array, editable: boolean) => HeaderAction,
    private onFrame: (h: EnvelopeHeader, body: Uint8Array | null) => void,
    /** Asked at the first byte of each header: hold it back? Only rules that edit need that. */
    private holdHeaders: () => boolean = () => false,
  ) {}

  /**
   * Consumes `chunk` from `start`; appends what to forward to `out` (when not null). Stops
   * early and returns the position when `stopAfterFrame` says so (the framing changes).
   */
  feed(chunk: Uint8Array, start: number, out: Uint8Array[] | null, stopAfterFrame: () => boolean): number {
    let i = start;
    while (i < chunk.length) {
      if (this.current === null) {
        if (this.fill === 0) this.holding = out !== null && this.holdHeaders();
        const take = Math.min(ENVELOPE_HEADER_BYTES - this.fill, chunk.length - i);
        this.header.set(chunk.subarray(i, i + take), this.fill);
        if (!this.holding) out?.push(chunk.subarray(i, i + take));
        this.fill += take;
        i += take;
        if (this.fill < ENVELOPE_HEADER_BYTES) break;
        const raw = this.header.slice();
        const h = readEnvelopeHeader(raw);
        const action = this.onHeader(h, raw, this.holding);
        if (this.holding) {
          const emitted = action.emit ?? raw;
          if (emitted.length > 0) out?.push(emitted);
        }
        this.current = h;
        this.bodyLeft = h.bodyLength;
        this.dropBody = this.holding && action.dropBody;
        this.capture = action.captureBody && h.bodyLength <= MAX_CAPTURED_BODY_BYTES ? [] : null;
        this.captured = 0;
        this.fill = 0;
      } else {
        const take = Math.min(this.bodyLeft, chunk.length - i);
        const part = chunk.subarray(i, i + take);
        if (!this.dropBody) out?.push(part);
        if (this.capture) {
          this.capture.push(part.slice());
          this.captured += take;
        }
        this.bodyLeft -= take;
        i += take;
      }
      if (this.current !== null && this.bodyLeft === 0) {
        const h = this.current;
        const body = this.capture ? concat(this.capture, this.captured) : null;
        this.current = null;
        this.capture = null;
        this.onFrame(h, body);
        if (stopAfterFrame()) return i;
      }
    }
    return i;
  }
}

function concat(parts: Uint8Array[], total?: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total ?? parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** v5 outer frames: header (with CRC24), payload, CRC32 trailer. */
class V5FrameParser {
  private header: Uint8Array;
  private fill = 0;
  private stage: "header" | "payload" | "trailer" = "header";
  private left = 0;
  /** XOR mask for the first byte of the coming trailer, or 0 for none. */
  private trailerMask = 0;

  constructor(
    private lz4: boolean,
    /** Decides edits once a header is whole; may change the header bytes in place. */
    private onHeader: (header: Uint8Array) => { trailerMask: number },
    /** Uncompressed payload bytes, for the inner envelope parser. */
    private onPayload: ((part: Uint8Array) => void) | null,
  ) {
    this.header = new Uint8Array(v5HeaderBytes(lz4));
  }

  feed(chunk: Uint8Array, start: number, out: Uint8Array[]): void {
    let i = start;
    while (i < chunk.length) {
      if (this.stage === "header") {
        const take = Math.min(this.header.length - this.fill, chunk.length - i);
        this.header.set(chunk.subarray(i, i + take), this.fill);
        this.fill += take;
        i += take;
        if (this.fill < this.header.length) break;
        // The length is read before any edit: the proxy keeps its own framing intact.
        const { payloadLength } = readV5PayloadLength(this.header);
        const emitted = this.header.slice();
        this.trailerMask = this.onHeader(emitted).trailerMask;
        out.push(emitted);
        this.fill = 0;
        this.left = payloadLength;
        this.stage = "payload";
        if (this.left === 0) {
          this.stage = "trailer";
          this.left = V5_TRAILER_BYTES;
        }
      } else {
        const take = Math.min(this.left, chunk.length - i);
        let part = chunk.subarray(i, i + take);
        if (this.stage === "payload") {
          if (!this.lz4) this.onPayload?.(part);
        } else if (this.trailerMask !== 0 && this.left === V5_TRAILER_BYTES) {
          // The trailer may arrive in pieces; its first byte is the one spoiled.
          part = part.slice();
          part[0] ^= this.trailerMask;
          this.trailerMask = 0;
        }
        out.push(part);
        this.left -= take;
        i += take;
        if (this.left === 0) {
          if (this.stage === "payload") {
            this.stage = "trailer";
            this.left = V5_TRAILER_BYTES;
          } else {
            this.stage = "header";
          }
        }
      }
    }
  }
}

type WriteJob = { slices: Uint8Array[]; bytes: number; dueAt: number; oneByte: boolean; after?: () => void };

/** Forwards one direction of one connection: rules, parsing, latency, segmentation, flow control. */
class Pump {
  bytesIn = 0;
  bytesOut = 0;
  private pendingBytes = 0;
  private held: Uint8Array[] = [];
  private queue: WriteJob[] = [];
  private writing = false;
  /** Per rule object: this pump's byte count when the rule first met it (cut, offsets). */
  private ruleBase = new WeakMap<FaultRules, number>();
  private outBase = new WeakMap<FaultRules, number>();
  private garble = new WeakMap<FaultRules, () => number>();
  /** Once a cut is decided nothing more passes this way, even before the cut happens. */
  private cutDecided = false;
  private closeWaiter: (() => void) | null = null;
  ended = false;

  constructor(
    readonly conn: ProxiedConnection,
    readonly direction: Direction,
    readonly from: NetSocket,
    readonly to: NetSocket,
  ) {
    to.on("close", () => this.closeWaiter?.());
  }

  get stalled(): boolean {
    return appliesTo(this.conn.rules().stall, this.direction);
  }

  onData(chunk: Uint8Array): void {
    if (this.conn.closed || this.cutDecided) return;
    if (this.stalled || this.held.length > 0) {
      this.held.push(chunk);
      this.updateFlow();
      return;
    }
    this.process(chunk);
  }

  /** Re-reads the rules: releases held chunks once a stall is lifted. */
  rulesChanged(): void {
    while (!this.stalled && this.held.length > 0 && !this.conn.closed && !this.cutDecided) {
      this.process(this.held.shift()!);
    }
    this.updateFlow();
  }

  updateFlow(): void {
    if (this.conn.closed) return;
    const pause = this.stalled || this.pendingBytes > HIGH_WATER_BYTES;
    if (pause && !this.from.isPaused()) this.from.pause();
    else if (!pause && this.from.isPaused() && this.pendingBytes < LOW_WATER_BYTES) this.from.resume();
  }

  private process(input: Uint8Array): void {
    const { rules } = this.conn.effective();
    let chunk = input;
    let cutAfter: CutRule | null = null;
    if (rules.cut && rules.cut.direction === this.direction) {
      let base = this.ruleBase.get(rules);
      if (base === undefined) this.ruleBase.set(rules, base = this.bytesIn);
      const allowed = rules.cut.afterBytes - (this.bytesIn - base);
      if (allowed <= chunk.length) {
        chunk = chunk.subarray(0, Math.max(0, allowed));
        cutAfter = rules.cut;
      }
    }
    this.bytesIn += chunk.length;
    this.conn.proxy.counters.bytes[this.direction] += chunk.length;
    if (cutAfter) this.cutDecided = true;
    let slices = this.conn.frame(this.direction, chunk);
    if (this.direction === "toClient" && rules.corrupt && (rules.corrupt.offsets || rules.corrupt.probability)) {
      slices = this.spoilBytes(slices, rules, rules.corrupt);
    }
    const bytes = slices.reduce((n, s) => n + s.length, 0);
    this.enqueue({
      slices,
      bytes,
      dueAt: performance.now() + (rules.latencyMs ?? 0),
      oneByte: appliesTo(rules.oneByteWrites, this.direction),
      after: cutAfter ? () => this.conn.cut(cutAfter!) : undefined,
    });
  }

  /** Offsets and random flips, on the bytes as they leave. */
  private spoilBytes(slices: Uint8Array[], rules: FaultRules, rule: CorruptRule): Uint8Array[] {
    let base = this.outBase.get(rules);
    if (base === undefined) this.outBase.set(rules, base = this.bytesOut);
    let random = this.garble.get(rules);
    if (rule.probability && !random) this.garble.set(rules, random = prng((rule.seed ?? 1) + this.conn.id * 7919));
    const counters = this.conn.proxy.counters;
    return slices.map((slice) => {
      const at = this.bytesOut - base!;
      let copy: Uint8Array | null = null;
      for (const offset of rule.offsets ?? []) {
        if (offset >= at && offset < at + slice.length) {
          copy ??= slice.slice();
          copy[offset - at] ^= rule.xor ?? 0xff;
          counters.corruptedBytes++;
        }
      }
      if (random && rule.probability) {
        for (let i = 0; i < slice.length; i++) {
          if (random() < rule.probability) {
            copy ??= slice.slice();
            copy[i] ^= 1 + Math.floor(random() * 255);
            counters.corruptedBytes++;
          }
        }
      }
      this.bytesOut += slice.length;
      return copy ?? slice;
    });
  }

  /** Bytes the proxy itself answers with (fake authentication), after what is queued. */
  inject(bytes: Uint8Array): void {
    this.enqueue({ slices: [bytes], bytes: bytes.length, dueAt: 0, oneByte: false });
  }

  private enqueue(job: WriteJob): void {
    this.pendingBytes += job.bytes;
    this.queue.push(job);
    this.updateFlow();
    if (!this.writing) void this.drain();
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0 && !this.conn.closed) {
        const job = this.queue.shift()!;
        const wait = job.dueAt - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        for (const slice of job.slices) {
          if (this.conn.closed) return;
          if (job.oneByte) {
            for (let i = 0; i < slice.length; i++) {
              if (this.conn.closed) return;
              await this.write(slice.subarray(i, i + 1), true);
              this.conn.proxy.counters.oneByteWrites++;
              // A timer turn lets a reader in this process take each byte on its own; without
              // it the bytes pile up in the socket and arrive as one read.
              await new Promise((r) => setTimeout(r, 0));
            }
          } else if (slice.length > 0) {
            await this.write(slice, false);
          }
        }
        this.pendingBytes -= job.bytes;
        this.updateFlow();
        job.after?.();
      }
      if (this.ended && this.queue.length === 0) this.conn.endTowards(this.to);
    } finally {
      this.writing = false;
    }
  }

  /** Writes; waits for the write callback (one segment per byte) or for 'drain' when the buffer is full. */
  private write(bytes: Uint8Array, waitForCallback: boolean): Promise<void> {
    if (this.to.destroyed) return Promise.resolve();
    let flushed = false;
    const settled = new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        this.closeWaiter = null;
        resolve();
      };
      // A destroyed socket may never call back: its 'close' settles the wait.
      this.closeWaiter = finish;
      flushed = this.to.write(bytes, () => {
        if (waitForCallback) finish();
      });
      if (!waitForCallback) {
        if (flushed) finish();
        else this.to.once("drain", finish);
      }
    });
    return settled;
  }

  /** The source ended: end the other side once everything queued is written. */
  sourceEnded(): void {
    this.ended = true;
    if (!this.writing && this.queue.length === 0) this.conn.endTowards(this.to);
  }
}

export class ProxiedConnection {
  closed = false;
  framing: "envelopes" | "v5-frames" = "envelopes";
  readonly toServer: Pump;
  readonly toClient: Pump;
  /** Request opcode by stream id, for requests awaiting their response. */
  private pending = new Map<number, number>();
  private prepareText = new Map<number, string>();
  private startupStream: number | null = null;
  private lz4 = false;
  private awaitingAuthResponse: { username: string; password: string } | null = null;
  private versionByte = 0x84;
  private requestParser: EnvelopeParser;
  private responseParser: EnvelopeParser;
  private v5Requests: V5FrameParser | null = null;
  private v5Responses: V5FrameParser | null = null;

  constructor(readonly proxy: FaultProxy, readonly id: number, readonly client: NetSocket, readonly server: NetSocket) {
    this.toServer = new Pump(this, "toServer", client, server);
    this.toClient = new Pump(this, "toClient", server, client);
    this.requestParser = new EnvelopeParser(
      (h, _raw, editable) => this.onRequestHeader(h, editable),
      (h, body) => this.onRequest(h, body),
      () => this.awaitingAuthResponse !== null,
    );
    this.responseParser = new EnvelopeParser(
      (h, raw, editable) => this.onResponseHeader(h, raw, editable),
      (h, body) => this.onResponse(h, body),
      () => {
        const r = this.rules();
        return r.replace !== undefined || r.fakeAuth !== undefined || (r.corrupt?.target !== undefined);
      },
    );
  }

  /** Global rules overlaid with this connection's own. */
  rules(): FaultRules {
    return this.effective().rules;
  }

  effective(): { rules: FaultRules; state: RuleState } {
    return this.proxy.rulesFor(this.id);
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Runs a chunk through the CQL parser of its direction; returns what to forward. */
  frame(direction: Direction, chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (direction === "toServer") {
      if (this.v5Requests) this.v5Requests.feed(chunk, 0, out);
      else this.requestParser.feed(chunk, 0, out, () => false);
      return out;
    }
    let at = 0;
    if (!this.v5Responses) {
      at = this.responseParser.feed(chunk, 0, out, () => this.framing === "v5-frames");
    }
    if (this.v5Responses && at < chunk.length) this.v5Responses.feed(chunk, at, out);
    return out;
  }

  // ---- requests (client → server) ------------------------------------------------------------

  private onRequestHeader(h: EnvelopeHeader, editable: boolean): HeaderAction {
    const counters = this.proxy.counters;
    if (h.versionByte & 0x80) return PASS;
    if (h.opcode === Opcode.AUTH_RESPONSE && this.awaitingAuthResponse && editable) {
      return { emit: new Uint8Array(0), dropBody: true, captureBody: true };
    }
    counters.requests[opcodeName(h.opcode)] = (counters.requests[opcodeName(h.opcode)] ?? 0) + 1;
    this.proxy.recordRequest(this.id, h.opcode);
    if (h.stream >= 0) {
      this.pending.set(h.stream, h.opcode);
      this.proxy.noteInFlight(+1);
    }
    const tap = this.proxy.keyTap !== null;
    const capture = h.opcode === Opcode.STARTUP || h.opcode === Opcode.PREPARE ||
      (tap && (h.opcode === Opcode.EXECUTE || h.opcode === Opcode.BATCH));
    return { emit: null, dropBody: false, captureBody: capture };
  }

  private onRequest(h: EnvelopeHeader, body: Uint8Array | null): void {
    if (h.opcode === Opcode.AUTH_RESPONSE && this.awaitingAuthResponse) {
      this.answerAuth(h, body);
      return;
    }
    if (body === null) return;
    switch (h.opcode) {
      case Opcode.STARTUP: {
        this.startupStream = h.stream;
        this.versionByte = 0x80 | h.version;
        const options = readStartupOptions(body);
        this.lz4 = options?.COMPRESSION?.toLowerCase() === "lz4";
        break;
      }
      case Opcode.PREPARE: {
        const text = readPrepareText(body);
        if (text !== null) this.prepareText.set(h.stream, text);
        break;
      }
      case Opcode.EXECUTE: {
        const e = readExecute(body, h.version);
        if (e) this.proxy.tapRow(e.id, e.values);
        break;
      }
      case Opcode.BATCH: {
        for (const s of readBatch(body) ?? []) this.proxy.tapRow(s.id, s.values);
        break;
      }
    }
  }

  private answerAuth(h: EnvelopeHeader, body: Uint8Array | null): void {
    const expected = this.awaitingAuthResponse!;
    this.awaitingAuthResponse = null;
    const token = body ? readAuthToken(body) : null;
    const want = new TextEncoder().encode(`\0${expected.username}\0${expected.password}`);
    const ok = token !== null && token.length === want.length && token.every((b, i) => b === want[i]);
    const counters = this.proxy.counters;
    if (ok) {
      counters.fakeAuth.accepted++;
      this.toClient.inject(envelope(this.versionByte, h.stream, Opcode.AUTH_SUCCESS, AUTH_SUCCESS_BODY));
    } else {
      counters.fakeAuth.refused++;
      const refusal = new TextEncoder().encode("Provided username and/or password are incorrect");
      const errorBody = new Uint8Array(4 + 2 + refusal.length);
      new DataView(errorBody.buffer).setInt32(0, 0x0100);
      new DataView(errorBody.buffer).setUint16(4, refusal.length);
      errorBody.set(refusal, 6);
      this.toClient.inject(envelope(this.versionByte, h.stream, Opcode.ERROR, errorBody));
    }
  }

  // ---- responses (server → client) -----------------------------------------------------------

  private onResponseHeader(h: EnvelopeHeader, raw: Uint8Array, editable: boolean): HeaderAction {
    const { rules, state } = this.effective();
    const counters = this.proxy.counters;
    counters.responses[opcodeName(h.opcode)] = (counters.responses[opcodeName(h.opcode)] ?? 0) + 1;
    const requestOpcode = h.stream >= 0 ? this.pending.get(h.stream) : undefined;
    if (requestOpcode !== undefined) {
      this.pending.delete(h.stream);
      this.proxy.noteInFlight(-1);
    }
    const framed = this.framing === "v5-frames";
    if (!framed && !editable) {
      // The rules changed while this header was under way; edits start with the next one.
      return { emit: null, dropBody: false, captureBody: requestOpcode === Opcode.PREPARE && h.opcode === Opcode.RESULT };
    }
    let action: HeaderAction = {
      emit: null,
      dropBody: false,
      captureBody: requestOpcode === Opcode.PREPARE && h.opcode === Opcode.RESULT,
    };
    if (
      rules.fakeAuth && h.opcode === Opcode.READY && requestOpcode === Opcode.STARTUP && h.stream === this.startupStream
    ) {
      if (h.version >= 5) {
        this.proxy.notApplicable("fakeAuth on protocol v5");
      } else {
        this.awaitingAuthResponse = rules.fakeAuth;
        return {
          emit: envelope(h.versionByte, h.stream, Opcode.AUTHENTICATE, authenticateBody("org.apache.cassandra.auth.PasswordAuthenticator")),
          dropBody: true,
          captureBody: false,
        };
      }
    }
    const replace = rules.replace;
    if (replace && h.opcode === Opcode.RESULT && requestOpcode !== undefined) {
      const eligible = !replace.requestOpcodes || replace.requestOpcodes.includes(opcodeName(requestOpcode));
      const times = replace.times ?? 1;
      if (eligible && (times < 0 || state.replaced < times)) {
        state.replaceSeen++;
        const chosen = state.replaceSeen > (replace.skip ?? 0) &&
          (replace.probability === undefined || state.replaceRandom() < replace.probability);
        if (chosen) {
          if (framed) {
            this.proxy.notApplicable("replace on v5 frames");
          } else {
            state.replaced++;
            counters.replaced[replace.error.name] = (counters.replaced[replace.error.name] ?? 0) + 1;
            action = { emit: encodeErrorFrame(h.versionByte, h.stream, replace.error), dropBody: true, captureBody: false };
            this.proxy.noteReplaced(this.id, h.stream, requestOpcode);
          }
        }
      }
    }
    const corrupt = rules.corrupt;
    if (corrupt?.target && !action.dropBody) {
      const envelopeTarget = ENVELOPE_TARGET_OFFSET[corrupt.target];
      if (envelopeTarget !== undefined) {
        if (framed) {
          this.proxy.notApplicable(`corrupt ${corrupt.target} on v5 frames`);
        } else if (this.takeCorruptTurn(corrupt, state)) {
          const spoiled = raw.slice();
          spoiled[envelopeTarget] ^= corrupt.xor ?? 0xff;
          counters.corruptedBytes++;
          counters.corruptedFrames++;
          action = { ...action, emit: spoiled };
        }
      }
    }
    return action;
  }

  private takeCorruptTurn(corrupt: CorruptRule, state: RuleState): boolean {
    const times = corrupt.times ?? 1;
    if (times >= 0 && state.corrupted >= times) return false;
    state.corruptSeen++;
    if (state.corruptSeen <= (corrupt.skipFrames ?? 0)) return false;
    state.corrupted++;
    return true;
  }

  private onResponse(h: EnvelopeHeader, body: Uint8Array | null): void {
    if (body !== null && h.opcode === Opcode.RESULT) {
      const text = this.prepareText.get(h.stream);
      this.prepareText.delete(h.stream);
      const id = readPreparedId(body);
      if (text !== undefined && id !== null) this.proxy.notePrepared(id, text);
    }
    const switchesFraming = h.version >= 5 && (h.opcode === Opcode.READY || h.opcode === Opcode.AUTHENTICATE) &&
      this.framing === "envelopes";
    if (switchesFraming) this.startV5Framing();
  }

  /** After READY/AUTHENTICATE on v5 both directions are wrapped in v5 frames (spec §2.2). */
  private startV5Framing(): void {
    this.framing = "v5-frames";
    // Passive: the frames' CRCs cover these bytes, so envelopes inside are read, never edited.
    const passiveRequests = new EnvelopeParser((h) => this.onRequestHeader(h, false), (h, body) => this.onRequest(h, body));
    const passiveResponses = new EnvelopeParser((h, raw) => this.onResponseHeader(h, raw, false), (h, body) => this.onResponse(h, body));
    this.v5Requests = new V5FrameParser(this.lz4, () => ({ trailerMask: 0 }), (part) => {
      passiveRequests.feed(part, 0, null, () => false);
    });
    this.v5Responses = new V5FrameParser(this.lz4, (header) => this.onV5ResponseHeader(header), (part) => {
      passiveResponses.feed(part, 0, null, () => false);
    });
  }

  private onV5ResponseHeader(header: Uint8Array): { trailerMask: number } {
    const { rules, state } = this.effective();
    const corrupt = rules.corrupt;
    if (!corrupt?.target || ENVELOPE_TARGET_OFFSET[corrupt.target] !== undefined) return { trailerMask: 0 };
    if (!this.takeCorruptTurn(corrupt, state)) return { trailerMask: 0 };
    const counters = this.proxy.counters;
    counters.corruptedFrames++;
    counters.corruptedBytes++;
    const fieldsLength = header.length - 3;
    const mask = corrupt.xor ?? 0xff;
    switch (corrupt.target) {
      case "crc24":
        header[fieldsLength] ^= mask;
        return { trailerMask: 0 };
      case "segment-length":
        header[0] ^= mask;
        return { trailerMask: 0 };
      default:
        return { trailerMask: mask };
    }
  }

  // ---- closing ---------------------------------------------------------------------------------

  cut(rule: CutRule): void {
    if (this.closed) return;
    this.proxy.counters.cuts[rule.how]++;
    this.close(rule.how);
  }

  close(how: "close" | "reset"): void {
    if (this.closed) return;
    this.closed = true;
    if (how === "reset") {
      (this.client as NetSocket).resetAndDestroy();
    } else {
      this.client.end();
      setTimeout(() => this.client.destroy(), 1000);
    }
    this.server.destroy();
    this.proxy.connectionClosed(this);
  }

  endTowards(socket: NetSocket): void {
    if (!socket.destroyed) socket.end();
  }

  /** Either socket went away: the other follows, and requests in flight are forgotten. */
  gone(): void {
    if (this.closed) return;
    this.closed = true;
    this.client.destroy();
    this.server.destroy();
    this.proxy.connectionClosed(this);
  }

  forgetInFlight(): number {
    const n = this.pending.size;
    this.pending.clear();
    return n;
  }

  info(): ConnectionInfo {
    return {
      id: this.id,
      open: !this.closed,
      framing: this.framing,
      bytesToServer: this.toServer.bytesIn,
      bytesToClient: this.toClient.bytesIn,
      inFlight: this.pending.size,
    };
  }
}

const ENVELOPE_TARGET_OFFSET: Partial<Record<CorruptTarget, number>> = {
  version: 0,
  flags: 1,
  stream: 2,
  opcode: 4,
  length: 5,
};

export interface ProxyOptions {
  target: { host: string; port: number };
  listenHost?: string;
  /** 0 (the default) picks a free port. */
  listenPort?: number;
}

export interface ReplacedResponse {
  connection: number;
  stream: number;
  requestOpcode: string;
  at: number;
}

function tapMatches(tap: KeyTap, text: string): boolean {
  const parts = typeof tap.statementContains === "string" ? [tap.statementContains] : tap.statementContains;
  return parts.every((p) => text.includes(p));
}

export class FaultProxy {
  readonly target: { host: string; port: number };
  port = 0;
  host: string;
  private server: NetServer;
  private conns = new Map<number, ProxiedConnection>();
  private nextId = 1;
  private globalRules: FaultRules = {};
  private globalState = new RuleState({});
  private perConnection = new Map<number, { rules: FaultRules; state: RuleState }>();
  private merged = new Map<number, { global: FaultRules; own: FaultRules | undefined; rules: FaultRules; state: RuleState }>();
  keyTap: KeyTap | null = null;
  private tappedIds = new Set<string>();
  private preparedText = new Map<string, string>();
  private keysSent = new Map<string, number>();
  private tapSent = 0;
  private inFlightNow = 0;
  private peak = 0;
  /** The latest replaced responses (bounded), with when they were replaced. */
  readonly replacedLog: ReplacedResponse[] = [];
  /** Arrival time of requests per opcode (bounded), for measuring retry delays. */
  readonly requestLog: Array<{ connection: number; opcode: string; at: number }> = [];
  counters = FaultProxy.zeroCounters();

  private static zeroCounters() {
    return {
      accepted: 0,
      bytes: { toServer: 0, toClient: 0 } as Record<Direction, number>,
      requests: {} as Record<string, number>,
      responses: {} as Record<string, number>,
      replaced: {} as Record<string, number>,
      corruptedBytes: 0,
      corruptedFrames: 0,
      cuts: { close: 0, reset: 0 },
      oneByteWrites: 0,
      fakeAuth: { accepted: 0, refused: 0 },
      notApplicable: {} as Record<string, number>,
    };
  }

  private constructor(options: ProxyOptions) {
    this.target = options.target;
    this.host = options.listenHost ?? "127.0.0.1";
    this.server = net.createServer({ pauseOnConnect: true }, (client) => this.accept(client));
  }

  static async start(options: ProxyOptions): Promise<FaultProxy> {
    const proxy = new FaultProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once("error", reject);
      proxy.server.listen(options.listenPort ?? 0, proxy.host, () => resolve());
    });
    proxy.port = proxy.server.address().port;
    return proxy;
  }

  /** host:port to give clients as a contact point. */
  get address(): string {
    return `${this.host}:${this.port}`;
  }

  private accept(client: NetSocket): void {
    const id = this.nextId++;
    this.counters.accepted++;
    client.setNoDelay(true);
    const server = net.connect({ host: this.target.host, port: this.target.port });
    server.setNoDelay(true);
    server.pause();
    const conn = new ProxiedConnection(this, id, client, server);
    this.conns.set(id, conn);
    client.on("data", (chunk: Uint8Array) => conn.toServer.onData(chunk));
    server.on("data", (chunk: Uint8Array) => conn.toClient.onData(chunk));
    client.on("end", () => conn.toServer.sourceEnded());
    server.on("end", () => conn.toClient.sourceEnded());
    client.on("error", () => conn.gone());
    server.on("error", () => conn.gone());
    client.on("close", () => conn.gone());
    server.on("close", () => conn.gone());
    server.once("connect", () => {
      client.resume();
      server.resume();
      conn.toServer.rulesChanged();
      conn.toClient.rulesChanged();
    });
  }

  connectionClosed(conn: ProxiedConnection): void {
    this.noteInFlight(-conn.forgetInFlight());
  }

  // ---- rules --------------------------------------------------------------------------------

  /** Rules for every connection, present and future; replaces the previous global rules. */
  setRules(rules: FaultRules): void {
    this.globalRules = { ...rules };
    this.globalState = new RuleState(this.globalRules);
    this.rulesChanged();
  }

  /** Rules for one connection, on top of the global ones. */
  setConnectionRules(id: number, rules: FaultRules): void {
    const own = { ...rules };
    this.perConnection.set(id, { rules: own, state: new RuleState(own) });
    this.rulesChanged();
  }

  clearRules(): void {
    this.globalRules = {};
    this.globalState = new RuleState({});
    this.perConnection.clear();
    this.rulesChanged();
  }

  private rulesChanged(): void {
    for (const c of this.conns.values()) {
      c.toServer.rulesChanged();
      c.toClient.rulesChanged();
    }
  }

  /**
   * The rules one connection follows. A rule set's object identity is stable until the
   * rules change, so per-connection byte counts (cut, offsets) restart only then. Counters
   * of replace/corrupt live with the rules that hold them: global ones are shared.
   */
  rulesFor(id: number): { rules: FaultRules; state: RuleState } {
    const own = this.perConnection.get(id);
    if (!own) return { rules: this.globalRules, state: this.globalState };
    const cached = this.merged.get(id);
    if (cached && cached.global === this.globalRules && cached.own === own.rules) return cached;
    const rules = { ...this.globalRules, ...own.rules };
    // Counters follow whichever rule set supplies the replace/corrupt rule.
    const state = (own.rules.replace || own.rules.corrupt) ? own.state : this.globalState;
    const entry = { global: this.globalRules, own: own.rules, rules, state };
    this.merged.set(id, entry);
    return entry;
  }

  // ---- observation --------------------------------------------------------------------------

  connections(): ConnectionInfo[] {
    return [...this.conns.values()].map((c) => c.info());
  }

  openConnections(): ConnectionInfo[] {
    return this.connections().filter((c) => c.open);
  }

  closeConnection(id: number, how: "close" | "reset" = "close"): boolean {
    const c = this.conns.get(id);
    if (!c || c.closed) return false;
    this.counters.cuts[how]++;
    c.close(how);
    return true;
  }

  noteInFlight(delta: number): void {
    this.inFlightNow += delta;
    if (this.inFlightNow > this.peak) this.peak = this.inFlightNow;
  }

  /** Starts a new peak-in-flight measurement from the current level. */
  resetPeakInFlight(): void {
    this.peak = this.inFlightNow;
  }

  noteReplaced(connection: number, stream: number, requestOpcode: number): void {
    this.replacedLog.push({ connection, stream, requestOpcode: opcodeName(requestOpcode), at: performance.now() });
    if (this.replacedLog.length > 10_000) this.replacedLog.shift();
  }

  notApplicable(what: string): void {
    this.counters.notApplicable[what] = (this.counters.notApplicable[what] ?? 0) + 1;
  }

  /** Starts recording the rows sent by the statement matching `tap`. */
  tapKeys(tap: KeyTap): void {
    this.keyTap = tap;
    this.keysSent.clear();
    this.tapSent = 0;
    this.tappedIds.clear();
    for (const [id, text] of this.preparedText) if (tapMatches(tap, text)) this.tappedIds.add(id);
  }

  notePrepared(id: string, text: string): void {
    this.preparedText.set(id, text);
    if (this.keyTap && tapMatches(this.keyTap, text)) this.tappedIds.add(id);
  }

  tapRow(id: string, values: string[]): void {
    if (!this.keyTap || !this.tappedIds.has(id)) return;
    const key = values[this.keyTap.valueIndex];
    if (key === undefined) return;
    this.tapSent++;
    this.keysSent.set(key, (this.keysSent.get(key) ?? 0) + 1);
  }

  recordRequest(connection: number, opcode: number): void {
    this.requestLog.push({ connection, opcode: opcodeName(opcode), at: performance.now() });
    if (this.requestLog.length > 10_000) this.requestLog.shift();
  }

  stats(): ProxyStats {
    const c = this.counters;
    const open = [...this.conns.values()].filter((x) => !x.closed).length;
    return {
      connectionsAccepted: c.accepted,
      connectionsOpen: open,
      bytesToServer: c.bytes.toServer,
      bytesToClient: c.bytes.toClient,
      requests: { ...c.requests },
      responses: { ...c.responses },
      inFlight: this.inFlightNow,
      peakInFlight: this.peak,
      replaced: { ...c.replaced },
      corruptedBytes: c.corruptedBytes,
      corruptedFrames: c.corruptedFrames,
      cuts: { ...c.cuts },
      oneByteWrites: c.oneByteWrites,
      fakeAuth: { ...c.fakeAuth },
      notApplicable: { ...c.notApplicable },
      keys: this.keyTap ? { sent: this.tapSent, distinct: this.keysSent.size, duplicates: this.tapSent - this.keysSent.size } : null,
    };
  }

  /** The bound key values sent so far (hex), with how often each was sent. */
  keysSeen(): Map<string, number> {
    return new Map(this.keysSent);
  }

  async close(): Promise<void> {
    for (const c of this.conns.values()) {
      c.gone();
      c.client.destroy();
      c.server.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

// ---- the HTTP control API ----------------------------------------------------------------------

/**
 * Serves the proxy's controls over HTTP on 127.0.0.1:
 *   GET    /stats                       ProxyStats
 *   GET    /connections                 ConnectionInfo[]
 *   PUT    /rules                       FaultRules (global)      DELETE /rules (all rules)
 *   PUT    /connections/:id/rules       FaultRules (one connection)
 *   POST   /connections/:id/close       {"how": "close" | "reset"}
 *   POST   /tap                         KeyTap
 *   POST   /peak-in-flight/reset
 */
export function serveControl(proxy: FaultProxy, port = 0): { port: number; shutdown(): Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const parts = url.pathname.split("/").filter(Boolean);
    const json = (value: unknown, status = 200) =>
      new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
    try {
      if (req.method === "GET" && url.pathname === "/stats") return json(proxy.stats());
      if (req.method === "GET" && url.pathname === "/connections") return json(proxy.connections());
      if (req.method === "PUT" && url.pathname === "/rules") {
        proxy.setRules(await req.json());
        return json({ ok: true });
      }
      if (req.method === "DELETE" && url.pathname === "/rules") {
        proxy.clearRules();
        return json({ ok: true });
      }
      if (req.method === "POST" && url.pathname === "/tap") {
        proxy.tapKeys(await req.json());
        return json({ ok: true });
      }
      if (req.method === "POST" && url.pathname === "/peak-in-flight/reset") {
        proxy.resetPeakInFlight();
        return json({ ok: true });
      }
      if (parts[0] === "connections" && parts.length === 3) {
        const id = Number(parts[1]);
        if (req.method === "PUT" && parts[2] === "rules") {
          proxy.setConnectionRules(id, await req.json());
          return json({ ok: true });
        }
        if (req.method === "POST" && parts[2] === "close") {
          const body = await req.json().catch(() => ({}));
          return json({ ok: proxy.closeConnection(id, body.how === "reset" ? "reset" : "close") });
        }
      }
      return json({ error: `no route for ${req.method} ${url.pathname}` }, 404);
    } catch (e) {
      return json({ error: String((e as Error)?.message ?? e) }, 400);
    }
  });
  return { port: server.addr.port, shutdown: () => server.shutdown() };
}
