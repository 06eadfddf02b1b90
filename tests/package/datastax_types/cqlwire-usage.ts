/*
 * Not DataStax's: cqlwire's own additions, in the style of the files beside it. Each line is
 * code that compiles against DataStax's declarations (the harness checks this file against
 * them too) and broke against earlier cqlwire/compat declarations.
 */
import { Client, type ExecutionOptions, mapping, metrics, tracker, types } from "cqlwire/compat";

async function rowValues(client: Client): Promise<string> {
  const rs = await client.execute("SELECT name FROM ks1.users");
  // Row values are `any` and `first()` a `Row`, as DataStax declares them.
  let s: string = rs.first().name.toUpperCase();
  s = rs.rows[0].get("name").trim();
  s = rs.rows[0].get(0).trim();
  const first: types.Row = rs.first();
  first.forEach((value) => void value);
  for (const row of rs) s += row["name"].length;
  return s + first.values().length + first.keys().join();
}

async function mapperDocuments(mapper: mapping.ModelMapper): Promise<string> {
  const doc = await mapper.get({ id: 1 });
  return doc.name.toUpperCase() + (await mapper.find({})).first().name;
}

async function mapperOperators(m: mapping.Mapper, videos: mapping.ModelMapper): Promise<boolean> {
  const q = mapping.q;
  const since: mapping.q.QueryOperator = q.gte(new Date());
  await videos.find({ userId: q.in_([1, 2]), addedDate: since, rank: q.and(q.gt(1), q.lte(9)) });
  await videos.update({ id: 1, views: q.incr(1), tags: q.append(["x"]) }, { when: { version: q.lt(3) } });
  await videos.remove({ id: 1 }, { when: { views: q.notEq(0) }, deleteOnlyColumns: true });
  const items: mapping.ModelBatchItem[] = [videos.batching.insert({ id: 2 }), videos.batching.update({ id: 1, tags: q.remove(["x"]) })];
  return (await m.batch(items, { logged: false, isIdempotent: true })).wasApplied();
}

function events(client: Client): void {
  client.on("hostUp", (host) => console.log(host.address));
  client.stream("SELECT * FROM ks1.users").on("data", (row) => console.log(row.name.length));
}

// A tracker written against DataStax's interface, a RequestLogger and metrics in the options
// (compat called none of them before: it refused both options).
class Audit implements tracker.RequestTracker {
  // deno-lint-ignore no-explicit-any
  onSuccess(host: { address: string }, query: string | Array<{ query: string; params?: any }>, _p: any, options: ExecutionOptions, requestLength: number, responseLength: number, latency: number[]): void {
    console.log(host.address, typeof query, options.isPrepared(), requestLength + responseLength, latency[0] * 1e3 + latency[1] / 1e6);
  }
  // deno-lint-ignore no-explicit-any
  onError(host: { address: string }, _query: string | Array<{ query: string; params?: any }>, _p: any, _o: ExecutionOptions, requestLength: number, err: Error, _latency: number[]): void {
    console.log(host.address, requestLength, err.message);
  }
  shutdown(): void {}
}

function trackers(): Client {
  const logger: tracker.RequestTracker = new tracker.RequestLogger({ slowThreshold: 500, logErroredRequests: true, messageMaxQueryLength: 100 });
  const client = new Client({ contactPoints: ["127.0.0.1"], requestTracker: logger, metrics: new metrics.DefaultMetrics() });
  const m: metrics.ClientMetrics = client.metrics;
  m.onResponse([0, 1]);
  void new Audit();
  return client;
}

function bytes(): string {
  // Buffers where DataStax declares Buffer (with Node's types in the program).
  const b: Buffer = types.Uuid.random().getBuffer();
  const l: Buffer = types.BigDecimal.toBuffer(types.BigDecimal.fromString("1.5"));
  return b.toString("hex") + l.toString("base64") + types.InetAddress.fromString("::1").getBuffer().readUInt8(0);
}

void rowValues;
void mapperDocuments;
void mapperOperators;
void events;
void bytes;
void trackers;
