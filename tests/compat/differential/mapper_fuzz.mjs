/**
 * The mapper's statements under random use, on both drivers: the same seeded random documents,
 * docInfos and execution options go through `insert`/`update`/`remove`/`find`/`get`/`findAll`
 * and `mapper.batch` of four models (three tables; renamed columns with `fromModel`; the
 * underscore/camel-case conventions), with `client.execute` and `client.batch` replaced by a
 * recorder that rejects. What each driver would have sent (CQL, parameters, options) or the
 * error it gave, and whether it threw before any promise, must describe the same. Node only
 * (statement building is the same JavaScript on every runtime). Found four differences the
 * scenarios now hold (README of datastax_suite, "Mapper").
 *
 * Left out, DataStax's own bugs: a batch with both `batching.update` and `batching.remove` of
 * one document shape (its remove reuses the update's cached statements), a batch of an empty
 * document (a TypeError there), an UPDATE with nothing to SET (its parameters start with a hole;
 * the statement is invalid on both).
 *
 *   node tests/compat/differential/mapper_fuzz.mjs [SEED] [CALLS]   (CQLWIRE_DIFF_KEYSPACE=PREFIX)
 */
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe } from "./describe.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const require = createRequire(import.meta.url);
const datastax = require(path.join(root, "node_modules/cassandra-driver"));
const cqlwire = require(path.join(root, "dist/compat-node.cjs"));
const KS = `${process.env.CQLWIRE_DIFF_KEYSPACE ?? "diffcompat"}_fuzz`;
const HOST = process.env.CQLWIRE_HOSTS?.split(",")[0] ?? "127.0.0.1:9042";
const SENT = "recorded, not sent";
const seed = Number(process.argv[2] ?? 1);
const calls = Number(process.argv[3] ?? 500);
// DataStax keeps a model's failed statement building as a rejected promise in its cache.
process.on("unhandledRejection", () => {});

const newClient = (d) => new d.Client({ contactPoints: [HOST], localDataCenter: "datacenter1" });

async function setup() {
  const c = newClient(datastax);
  try {
    await c.execute(`DROP KEYSPACE IF EXISTS ${KS}`);
    await c.execute(`CREATE KEYSPACE ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await c.execute(`CREATE TABLE ${KS}.t1 (a int, b int, c int, s int static, v text, l list<int>, PRIMARY KEY (a, b, c))`);
    await c.execute(`CREATE TABLE ${KS}.t2 (b int PRIMARY KEY, a int, c int, v text)`);
    await c.execute(`CREATE TABLE ${KS}.t3 (a int, c int, b int, v text, PRIMARY KEY ((a, c), b))`);
    await c.execute(`CREATE TABLE ${KS}.t4 (user_id int, added_at int, user_v text, PRIMARY KEY (user_id, added_at))`);
  } finally {
    await c.shutdown();
  }
}

/** A generator of numbers in [0, 1) from `s`: both drivers get the same calls. */
function random(s) {
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

function models(d) {
  const renamed = {
    a: { name: "aa", fromModel: (x) => (typeof x === "number" ? x + 100 : x) },
    v: { name: "vee", toModel: (x) => x, fromModel: (x) => `f${x}` },
    b: "bee",
  };
  return {
    M: { tables: ["t1", "t2", "t3"], keyspace: KS },
    One: { tables: ["t1"], keyspace: KS },
    R: { tables: ["t1", "t3"], keyspace: KS, columns: renamed },
    U: { tables: ["t4"], keyspace: KS, mappings: new d.mapping.UnderscoreCqlToCamelCaseMappings(), columns: { user_v: { fromModel: (x) => x } } },
  };
}
const RENAMES = { R: [["a", "aa"], ["v", "vee"], ["b", "bee"]], U: [["a", "userId"], ["b", "addedAt"], ["v", "userV"], ["c", "user_v"]] };

/** One random call: the model, the method, the document, its docInfo, the execution options. */
function randomCall(d, r) {
  const q = d.mapping.q;
  const pick = (arr) => arr[Math.floor(r() * arr.length)];
  const value = (k) => {
    if (k === "l") return pick([[1], q.append([2]), q.prepend([3]), q.remove([1]), undefined]);
    if (k === "v") return pick(["x", null, undefined, q.notEq("y")]);
    if (r() < 0.6) return Math.floor(r() * 5);
    return pick([q.in_([1, 2]), q.gt(1), q.gte(1), q.lt(3), q.and(q.gt(0), q.lt(4)), undefined, null, q.incr(1)]);
  };
  const some = (keys, p) => keys.filter(() => r() < p);
  const doc = Object.fromEntries(some(["a", "b", "c", "s", "v", "l", "x"], 0.5).map((k) => [k, value(k)]));
  const info = {};
  if (r() < 0.3) info.fields = some(["a", "b", "c", "s", "v", "l", "x"], 0.4);
  if (r() < 0.2) info.ttl = 10;
  if (r() < 0.2) info.ifNotExists = true;
  if (r() < 0.2) info.ifExists = true;
  if (r() < 0.2) info.when = Object.fromEntries(some(["v", "s", "a"], 0.5).map((k) => [k, r() < 0.5 ? 1 : q.gt(1)]));
  if (r() < 0.2) info.orderBy = Object.fromEntries(some(["b", "c", "a"], 0.5).map((k) => [k, pick(["asc", "DESC", "bad"])]));
  if (r() < 0.2) info.limit = 3;
  if (r() < 0.2) info.deleteOnlyColumns = true;
  const method = pick(["insert", "update", "remove", "find", "get", "findAll"]);
  const docInfo = r() < 0.2 ? undefined : info;
  const model = pick(["M", "One", "R", "U"]);
  for (const [from, to] of RENAMES[model] ?? []) {
    if (from in doc && r() < 0.7) {
      doc[to] = doc[from];
      delete doc[from];
    }
  }
  const batch = r() < 0.15 ? some(["insert", "update", "remove"], 0.6) : null;
  const options = r() < 0.3 ? "default" : r() < 0.5 ? { logged: false, isIdempotent: r() < 0.5, fetchSize: 2 } : undefined;
  return { model, method, doc, docInfo, batch, options };
}

/** Whether DataStax's own bugs (header) decide this call's outcome. */
function datastaxBug({ batch, doc }, sent) {
  if (batch && (Object.keys(doc).length === 0 || (batch.includes("update") && batch.includes("remove")))) return true;
  const queries = sent.flatMap(([first, second]) => (first === "BATCH" ? second.map(([query]) => query) : [first]));
  return queries.some((query) => query.includes(" SET  WHERE "));
}

/** What happens to `what`: thrown before any promise, rejected, or resolved. */
async function outcome(what) {
  let promise;
  try {
    promise = what();
  } catch (e) {
    return `threw ${e.constructor.name}: ${e.message}`;
  }
  try {
    await promise;
    return "resolved";
  } catch (e) {
    return e.message === SENT ? "sent" : `rejected ${e.constructor.name}: ${e.message}`;
  }
}

async function side(d) {
  const client = newClient(d);
  await client.connect();
  let sent = [];
  client.execute = (query, params, options) => (sent.push([query, params, options]), Promise.reject(new Error(SENT)));
  client.batch = (queries, options) => (sent.push(["BATCH", queries.map((x) => [x.query, x.params]), options]), Promise.reject(new Error(SENT)));
  const r = random(seed);
  const out = [];
  try {
    for (let i = 0; i < calls; i++) {
      const call = randomCall(d, r);
      // A new Mapper each time: DataStax caches statements by document shape.
      const mapper = new d.mapping.Mapper(client, { models: models(d) });
      const m = mapper.forModel(call.model);
      sent = [];
      const { method, doc, docInfo, batch, options } = call;
      const result = await outcome(() => {
        if (batch) return mapper.batch(batch.map((kind) => m.batching[kind](doc, docInfo)), options);
        return method === "findAll" ? m.findAll(docInfo, options) : m[method](doc, docInfo, options);
      });
      out.push({ call: describe([call.model, batch ?? method, doc, docInfo, options]), bug: datastaxBug(call, sent), result: describe([result, sent]) });
    }
  } finally {
    delete client.execute;
    delete client.batch;
    await client.shutdown();
  }
  return out;
}

await setup();
const [a, b] = [await side(datastax), await side(cqlwire)];
const dropper = newClient(datastax);
await dropper.execute(`DROP KEYSPACE IF EXISTS ${KS}`).finally(() => dropper.shutdown());
let differ = 0;
let skipped = 0;
for (let i = 0; i < calls; i++) {
  if (a[i].bug) {
    skipped++;
    continue;
  }
  if (a[i].result === b[i].result) continue;
  if (differ++ < 5) console.log(`✗ #${i} ${a[i].call}\n  datastax: ${a[i].result}\n  cqlwire:  ${b[i].result}`);
}
console.log(`mapper fuzz, seed ${seed}: ${calls - skipped - differ} agree, ${differ} differ, ${skipped} left out (DataStax's bugs)`);
process.exit(differ === 0 ? 0 : 1);
