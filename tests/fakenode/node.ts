/**
 * A scriptable fake CQL node on an ephemeral loopback port, for Deno and Node (node:net).
 * It speaks v4 and v5, answers the handshake and the control queries with sane defaults,
 * records every request, and lets a test replace any answer (see script.ts).
 */
import { createServer, type Server, type Socket } from "node:net";
import { ByteWriter, concat, toHex } from "./bytes.ts";
import { FakeConnection } from "./connection.ts";
import { type Compression, encodeEnvelope, type Envelope, FLAG_COMPRESSION } from "./framing.ts";
import { errorBody, type ServerError } from "./errors.ts";
import { decodeRequest, type RecordedRequest } from "./requests.ts";
import { type Handler, type Match, type Reply, Rule } from "./script.ts";
import { Op } from "./opcodes.ts";
import { authenticateBody, authSuccessBody } from "./results.ts";
import { defaultPrepared, defaultQueryAnswer, defaultSupported, type NodeIdentity } from "./defaults.ts";

export interface FakeNodeOptions {
  /** Protocol versions the node accepts (default 4 and 5). */
  versions?: number[];
  /** Ask for PasswordAuthenticator credentials after STARTUP. */
  auth?: boolean;
  identity?: Partial<NodeIdentity>;
}

let nodeCount = 0;

export class FakeNode {
  readonly requests: RecordedRequest[] = [];
  readonly connections: FakeConnection[] = [];
  identity: NodeIdentity;
  peers: NodeIdentity[] = [];
  private server: Server;
  private rules: Rule[] = [];
  private prepared = new Map<string, string>();
  private versions: number[];
  private auth: boolean;

  private constructor(options: FakeNodeOptions) {
    const n = ++nodeCount;
    this.versions = options.versions ?? [4, 5];
    this.auth = options.auth ?? false;
    this.identity = {
      ip: "127.0.0.1",
      port: 0,
      hostId: `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
      dataCenter: "dc1",
      rack: "rack1",
      tokens: [String(-(2n ** 63n) + BigInt(n) * 2n ** 60n)],
      releaseVersion: "5.0.6",
      ...options.identity,
    };
    this.server = createServer((socket: Socket) => this.accept(socket));
  }

  static async start(options: FakeNodeOptions = {}): Promise<FakeNode> {
    const node = new FakeNode(options);
    await new Promise<void>((resolve, reject) => {
      node.server.once("error", reject);
      node.server.listen(0, "127.0.0.1", () => resolve());
    });
    node.identity.port = (node.server.address() as { port: number }).port;
    return node;
  }

  /** `host:port`, as a contact point. */
  get address(): string {
    return `${this.identity.ip}:${this.identity.port}`;
  }

  /** Replies with `answer` to requests that fit `match`; earlier rules win. */
  on(match: Match, answer: Reply | Handler): this {
    this.rules.push(new Rule(match, answer));
    return this;
  }

  /** Requests of one opcode (by name, e.g. "QUERY"), in arrival order. */
  sent(op: string): RecordedRequest[] {
    return this.requests.filter((r) => r.op === op);
  }

  /** QUERY/PREPARE outside the system tables, EXECUTE and BATCH: what the test caused. */
  userRequests(): RecordedRequest[] {
    return this.requests.filter((r) =>
      ((r.opcode === Op.QUERY || r.opcode === Op.PREPARE) && !/\bsystem(_schema)?\./i.test(r.query ?? "")) ||
      r.opcode === Op.EXECUTE || r.opcode === Op.BATCH
    );
  }

  /** Sends an EVENT (stream -1) to every connection that registered, or to one. */
  pushEvent(body: Uint8Array, connection?: number): void {
    for (const c of this.connections) {
      if (c.closed || (connection === undefined ? !c.registered : c.id !== connection)) continue;
      c.send({ versionByte: 0x80 | c.version, flags: 0, stream: -1, opcode: Op.EVENT, body });
    }
  }

  /** Connections the client has not closed. */
  openConnections(): FakeConnection[] {
    return this.connections.filter((c) => !c.closed);
  }

  async stop(): Promise<void> {
    for (const c of this.connections) c.socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    this.connections.push(new FakeConnection(this.connections.length + 1, socket, (c, env) => this.onEnvelope(c, env)));
  }

  private async onEnvelope(conn: FakeConnection, env: Envelope): Promise<void> {
    const version = env.versionByte & 0x7f;
    const req = decodeRequest(
      { seq: this.requests.length + 1, connection: conn.id, version, frameFlags: env.flags, stream: env.stream, opcode: env.opcode, body: env.body },
      (id) => this.prepared.get(id),
    );
    this.requests.push(req);
    let reply: Reply | undefined;
    for (const rule of this.rules) {
      reply = await rule.reply(req, { connection: conn.id, version });
      if (reply) break;
    }
    await this.send(conn, req, reply ?? this.defaultReply(conn, req));
  }

  private defaultReply(conn: FakeConnection, req: RecordedRequest): Reply {
    if (!this.versions.includes(req.version)) {
      const max = Math.max(...this.versions);
      const message = `Invalid or unsupported protocol version (${req.version}); supported versions are (${this.versions.map((v) => `${v}/v${v}`).join(", ")})`;
      return { body: errorBody({ code: 0x000a, message }, max), opcode: Op.ERROR, versionByte: 0x80 | max };
    }
    switch (req.opcode) {
      case Op.OPTIONS:
        return { body: defaultSupported(), opcode: Op.SUPPORTED };
      case Op.STARTUP:
        return this.auth
          ? { body: authenticateBody("org.apache.cassandra.auth.PasswordAuthenticator"), opcode: Op.AUTHENTICATE }
          : { body: new Uint8Array(0), opcode: Op.READY };
      case Op.AUTH_RESPONSE:
        return { body: authSuccessBody(), opcode: Op.AUTH_SUCCESS };
      case Op.REGISTER:
        conn.registered = true;
        return { body: new Uint8Array(0), opcode: Op.READY };
      case Op.QUERY:
        return defaultQueryAnswer(req.query ?? "", this.identity, this.peers);
      case Op.PREPARE:
        return { body: defaultPrepared(req.query ?? "", req.version) };
      case Op.EXECUTE:
        return req.query !== undefined ? { body: new ByteWriter().int(0x0001).done() } : { error: unprepared(req.id ?? "") };
      default:
        return { body: new ByteWriter().int(0x0001).done() };
    }
  }

  private async send(conn: FakeConnection, req: RecordedRequest, reply: Reply): Promise<void> {
    if ("delayMs" in reply) {
      await new Promise((r) => setTimeout(r, reply.delayMs));
      return this.send(conn, req, reply.then);
    }
    if ("trickleMs" in reply) {
      // The reply's bytes are taken as the normal path writes them, then dripped.
      let taken: Uint8Array = new Uint8Array(0);
      conn.trickle = (bytes) => (taken = concat([taken, bytes]));
      try {
        await this.send(conn, req, reply.then);
      } finally {
        conn.trickle = null;
      }
      // Not awaited: the connection reads on (the client's next requests) meanwhile.
      void conn.drip(taken, reply.trickleMs, reply.bytes);
      return;
    }
    if ("silence" in reply) return;
    if ("close" in reply) return conn.close();
    if ("reset" in reply) return conn.reset();
    if ("raw" in reply) return conn.write(reply.raw);
    if ("envelope" in reply) return conn.sendEnvelope(reply.envelope);
    const e = "error" in reply ? { opcode: Op.ERROR, body: errorBody(reply.error, req.version) } : reply;
    const r = e as { body: Uint8Array; opcode?: number; flags?: number; stream?: number; versionByte?: number };
    const opcode = r.opcode ?? Op.RESULT;
    if (req.opcode === Op.STARTUP) this.startup(conn, req);
    if (req.opcode === Op.PREPARE && opcode === Op.RESULT) this.rememberPrepared(req, r.body);
    conn.sendEnvelope(encodeEnvelope({
      versionByte: r.versionByte ?? (0x80 | req.version),
      flags: r.flags ?? 0,
      stream: r.stream ?? req.stream,
      opcode,
      body: r.body,
    }));
    // v5 frames begin after the READY or AUTHENTICATE that answers STARTUP.
    if (req.opcode === Op.STARTUP && req.version >= 5 && (opcode === Op.READY || opcode === Op.AUTHENTICATE)) conn.framed = true;
  }

  /** EXECUTEs of the id this (default or scripted) Prepared result gives are known. */
  private rememberPrepared(req: RecordedRequest, body: Uint8Array): void {
    if (body.length < 6 || body[3] !== 0x04 || req.query === undefined) return;
    const idLength = (body[4] << 8) | body[5];
    this.prepared.set(toHex(body.subarray(6, 6 + idLength)), req.query);
  }

  private startup(conn: FakeConnection, req: RecordedRequest): void {
    conn.version = req.version;
    const c = req.startup?.COMPRESSION;
    conn.compression = (c === "lz4" || c === "snappy" ? c : "none") as Compression;
  }
}

function unprepared(idHex: string): ServerError {
  const id = Uint8Array.from(idHex.match(/../g) ?? [], (h) => parseInt(h, 16));
  return { code: 0x2500, message: `Prepared query with ID ${idHex} not found`, id };
}

export { FLAG_COMPRESSION };
