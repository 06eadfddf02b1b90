/**
 * One fuzz iteration, all of its choices drawn from its seed: a protocol version and
 * compression, an operation a user makes (connect, a query, a prepared execute, paging, a
 * batch, shutdown in flight, an event), the reply that lies and the layer of the lie. A
 * real `Client` runs the operation against a fake node that answers everything else as a
 * real server would; the iteration returns the invariants it broke (none: []).
 */
import { ByteWriter, errorBody, FakeNode, Op, type RecordedRequest, type ServerError } from "../../fakenode/mod.ts";
import { defaultQueryAnswer, defaultSupported, preparedIdFor } from "../../fakenode/defaults.ts";
import { nodeEventBody, schemaEventBody } from "../../fakenode/results.ts";
import { encodeEnvelope } from "../../fakenode/framing.ts";
import type { Bundle } from "../harness.ts";
import { checkSettled, settleWithin } from "./invariants.ts";
import { mutateBody } from "./mutate.ts";
import { Rng } from "./rng.ts";
import { lyingRows, preparedResult, randomRows, type RowsPlan, rowsResult } from "./rows.ts";
import { type Layer, type RealReply, sendHostile } from "./server.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export const OPS = ["connect", "query", "prepared", "paging", "batch", "shutdown", "event"] as const;
export type FuzzOp = typeof OPS[number];

/** Deadlines: the client's are short, the fuzzer's are several of them. */
const CLIENT_TIMEOUTS = { connectTimeout: 600, readTimeout: 500 };
const SETTLE_MS = 8000;

const USER_TABLE = /FROM ks\.t\b|INTO ks\.t\b/;

export interface IterationResult {
  seed: number;
  op: FuzzOp;
  plan: string[];
  failures: string[];
  /** The class of each rejection the API gave (e.g. CqlProtocolError), for the run's tally. */
  rejections: string[];
}

const SERVER_ERRORS: ServerError[] = [
  { code: 0x1001, message: "overloaded" },
  { code: 0x2200, message: "invalid" },
  { code: 0x1000, message: "unavailable", consistency: 1, required: 3, alive: 1 },
  { code: 0x1200, message: "read timeout", consistency: 1, received: 0, blockFor: 1, dataPresent: false },
];

/** The reply a real server gives `req`, for the ones the fuzzer may lie about. */
function realReply(req: RecordedRequest, node: FakeNode, rows: RowsPlan, rng: Rng, errorInstead: boolean): RealReply {
  if (errorInstead && req.opcode !== Op.OPTIONS && req.opcode !== Op.STARTUP) {
    return { opcode: Op.ERROR, body: errorBody(rng.pick(SERVER_ERRORS), req.version) };
  }
  switch (req.opcode) {
    case Op.OPTIONS:
      return { opcode: Op.SUPPORTED, body: defaultSupported() };
    case Op.STARTUP:
    case Op.REGISTER:
      return { opcode: Op.READY, body: new Uint8Array(0) };
    case Op.PREPARE:
      return { opcode: Op.RESULT, body: preparedResult(preparedIdFor(req.query ?? ""), (req.query?.match(/\?/g) ?? []).length, rows.types, req.version) };
    case Op.BATCH:
      return { opcode: Op.RESULT, body: new ByteWriter().int(1).done() };
    default:
      break;
  }
  if (USER_TABLE.test(req.query ?? "")) {
    const paged = req.params?.pagingState === undefined && rows.pagingState !== undefined;
    const plan = { ...rows, pagingState: paged ? rows.pagingState : undefined };
    return { opcode: Op.RESULT, body: rowsResult(plan), lie: (r) => lyingRows(r, plan) };
  }
  const a = defaultQueryAnswer(req.query ?? "", node.identity, node.peers);
  return { opcode: a.opcode, body: a.body, lie: (r) => mutateBody(r, a.body) };
}

/** Which request's reply lies, for each operation. */
function pickTarget(rng: Rng, op: FuzzOp): (req: RecordedRequest) => boolean {
  const handshake: Array<(r: RecordedRequest) => boolean> = [
    (r) => r.opcode === Op.OPTIONS,
    (r) => r.opcode === Op.STARTUP,
    (r) => r.opcode === Op.REGISTER,
    (r) => /FROM system\.local/.test(r.query ?? ""),
    (r) => /FROM system\.peers/.test(r.query ?? ""),
    (r) => /FROM system_schema\./.test(r.query ?? ""),
  ];
  switch (op) {
    case "connect":
      return rng.pick(handshake);
    case "prepared":
      return rng.pick([(r: RecordedRequest) => r.opcode === Op.PREPARE, (r: RecordedRequest) => r.opcode === Op.EXECUTE]);
    case "batch":
      return (r) => r.opcode === Op.BATCH;
    case "event":
      return () => false;
    case "paging": {
      const second = rng.chance(0.5);
      return (r) => USER_TABLE.test(r.query ?? "") && (r.params?.pagingState !== undefined) === second;
    }
    default:
      return (r) => r.opcode === Op.QUERY && USER_TABLE.test(r.query ?? "");
  }
}

function pickLayer(rng: Rng, version: number): Layer {
  const layers: Layer[] = ["rows", "body", "envelope", "delivery", "none"];
  if (version === 5) layers.push("frame", "frame");
  return rng.pick(layers);
}

/** Touches every value of every row: the TS row decoder runs on all of them. */
function touchRows(rs: Any): number {
  let n = 0;
  for (const row of rs?.rows ?? []) for (const k of Object.keys(row)) n += String(row[k]).length;
  return n;
}

/** The fake node's EVENT bodies, lied about now and then, on the registered connection. */
function pushHostileEvent(rng: Rng, node: FakeNode, plan: string[]): void {
  const conn = node.connections.find((c) => c.registered && !c.closed);
  if (!conn) return void plan.push("no registered connection for the event");
  const real = rng.pick([
    () => nodeEventBody("STATUS_CHANGE", rng.pick(["UP", "DOWN", "SIDEWAYS"]), "127.0.0.1", node.identity.port),
    () => nodeEventBody("TOPOLOGY_CHANGE", rng.pick(["NEW_NODE", "REMOVED_NODE", "MOVED_NODE"]), "10.9.9.9", 9042),
    () => schemaEventBody("CREATED", rng.pick(["KEYSPACE", "TABLE", "TYPE", "FUNCTION", "AGGREGATE"]), "ks", "t"),
  ])();
  const m = rng.chance(0.8) ? mutateBody(rng, real) : { body: real, what: "a real event" };
  const stream = rng.chance(0.85) ? -1 : rng.pick([0, 1, 77]);
  plan.push(`EVENT on stream ${stream}: ${m.what}`);
  conn.sendEnvelope(encodeEnvelope({ versionByte: 0x80 | conn.version, flags: 0, stream, opcode: Op.EVENT, body: m.body }));
}

/** Runs one seeded iteration against a fresh fake node; returns what broke. */
export async function runIteration(bundle: Bundle, seed: number): Promise<IterationResult> {
  const rng = new Rng(seed);
  const version = rng.pick([4, 5] as const);
  const compression = version === 4 ? rng.pick(["none", "lz4", "snappy"] as const) : rng.pick(["none", "lz4"] as const);
  const op = rng.pick(OPS);
  const plan: string[] = [`v${version} ${compression} ${op}`];
  const failures: string[] = [];
  const rejections: string[] = [];
  const rows = randomRows(rng, rng.chance(0.5) || op === "paging" ? rng.bytes(rng.range(1, 12)) : undefined);
  const target = pickTarget(rng, op);
  const times = rng.pick([1, 1, 1, 2, 1000]);
  const errorInstead = rng.chance(0.15);
  let lies = 0;
  const node = await FakeNode.start();
  // Every reply of interest goes through the fuzzer; the targeted ones lie.
  node.on({ where: (r) => r.opcode !== Op.EXECUTE || r.query !== undefined }, async (req, ctx) => {
    const isTarget = target(req) && lies < times;
    const interesting = isTarget || USER_TABLE.test(req.query ?? "") || req.opcode === Op.BATCH;
    if (!interesting) return undefined;
    if (isTarget) lies++;
    const layer = isTarget ? pickLayer(rng, req.version) : "none";
    const real = realReply(req, node, rows, rng, isTarget && errorInstead);
    const what = await sendHostile(rng, node, req, ctx, real, layer);
    if (isTarget) plan.push(`[${layer}] ${what}`);
    if (isTarget && rng.chance(0.15)) {
      const conn = node.connections.find((c) => c.id === ctx.connection);
      conn?.sendEnvelope(encodeEnvelope({ versionByte: 0x80 | req.version, flags: 0, stream: req.stream + 1 + rng.int(50), opcode: Op.RESULT, body: real.body }));
      plan.push("and an unsolicited copy on a stream nobody used");
    }
    return { silence: true };
  });
  const client = new bundle.Client({
    contactPoints: [node.address],
    protocolVersion: version,
    compression,
    socketOptions: CLIENT_TIMEOUTS,
    pooling: { heartBeatInterval: 0 },
    protocolOptions: { maxSchemaAgreementWaitSeconds: 1 },
  });
  const t0 = Date.now();
  // CQLWIRE_FUZZ_LOG=1: the client's log lines join the plan, to read a failing seed by.
  const logAll = (globalThis as Any).Deno?.env.get("CQLWIRE_FUZZ_LOG") === "1";
  client.on("log", (level: string, message: string) => {
    if (logAll) plan.push(`log +${Date.now() - t0} ms ${level}: ${message}`);
  });
  const settle = async (p: Promise<unknown>, what: string) => {
    const s = await settleWithin(p, SETTLE_MS, `seed ${seed} ${what}`, failures);
    checkSettled(bundle, s, `seed ${seed} ${what}`, failures);
    if (s && !s.ok) rejections.push((s.error as Error)?.name ?? typeof s.error);
    return s;
  };
  try {
    await runOp(op, client, settle, rng, node, plan);
    // The client goes on after the lie: one more request must settle too.
    if (op !== "shutdown") await settle(client.execute("SELECT c0 FROM ks.t").then(touchRows), "a request after the hostile reply");
  } catch (e) {
    failures.push(`seed ${seed}: the fuzzer itself threw: ${(e as Error).stack}`);
  } finally {
    await settle(client.shutdown(), "shutdown");
    plan.push(`requests seen: ${node.requests.map((r) => `${r.op}@${r.connection}/${r.stream}`).join(" ")}`);
    await node.stop();
  }
  return { seed, op, plan, failures, rejections };
}

type Settle = (p: Promise<unknown>, what: string) => Promise<unknown>;

async function runOp(op: FuzzOp, client: Any, settle: Settle, rng: Rng, node: FakeNode, plan: string[]): Promise<void> {
  if (op === "connect") {
    await settle(client.connect(), "connect");
    return;
  }
  const connected = await settle(client.connect(), "connect") as { ok: boolean } | undefined;
  if (!connected?.ok) return void plan.push("connect failed before the operation");
  switch (op) {
    case "query":
      await settle(client.execute("SELECT c0 FROM ks.t").then(touchRows), "execute");
      return;
    case "prepared":
      await settle(client.execute("SELECT c0 FROM ks.t WHERE a = ?", [1], { prepare: true }).then(touchRows), "execute prepared");
      return;
    case "paging":
      await settle(
        (async () => {
          let n = 0;
          for await (const row of client.stream("SELECT c0 FROM ks.t", [], { fetchSize: 2 })) n += Object.keys(row).length;
          return n;
        })(),
        "stream (paging)",
      );
      return;
    case "batch":
      await settle(client.batch([{ query: "INSERT INTO ks.t (a) VALUES (?)", params: [1] }, "INSERT INTO ks.t (a) VALUES (2)"], { prepare: rng.chance(0.5) }), "batch");
      return;
    case "shutdown": {
      // Each request is watched from the start: its rejection is handled when it comes.
      const inFlight = Array.from({ length: rng.range(1, 4) }, (_, i) => settle(client.execute("SELECT c0 FROM ks.t").then(touchRows), `request ${i} in flight at shutdown`));
      await new Promise((r) => setTimeout(r, rng.int(15)));
      await settle(client.shutdown(), "shutdown with requests in flight");
      await Promise.all(inFlight);
      return;
    }
    case "event":
      for (let i = rng.range(1, 3); i > 0; i--) pushHostileEvent(rng, node, plan);
      await new Promise((r) => setTimeout(r, 20));
      await settle(client.execute("SELECT c0 FROM ks.t").then(touchRows), "execute after events");
      return;
  }
}
