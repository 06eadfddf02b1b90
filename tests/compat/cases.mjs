/**
 * The compatibility suite: code in the style of the DataStax Node.js driver (`cassandra-driver`
 * 4.x), written from its public API and documentation, run unchanged against `cqlwire/compat`.
 * It uses nothing but ECMAScript, so the same file runs on Node, Deno and Bun.
 *
 *   compatCases(cassandra, { contactPoints, keyspace, runtime }) -> [{ name, run }]
 *
 * `cassandra` is what `import * as cassandra from "cqlwire/compat"` gives (what code imported
 * from "cassandra-driver" before). Every row of issue #15's table is a case here.
 */

import { assertExact } from "./exact.mjs";

class CompatAssertionError extends Error {}

function ok(value, message) {
  if (!value) throw new CompatAssertionError(message);
}

/** The suites' one exact comparison (tests/exact.mjs, copied beside this file). */
function equal(actual, expected, message) {
  assertExact(actual, expected, message);
}

async function rejects(promise, check, message) {
  try {
    await promise;
  } catch (e) {
    ok(check(e), `${message}: unexpected ${e && e.name}: ${e && e.message}`);
    return e;
  }
  throw new CompatAssertionError(`${message}: expected a rejection`);
}

/** A callback-style call as a promise of its (err, result), to assert on both. */
function viaCallback(start) {
  return new Promise((resolve) => start((err, result) => resolve({ err, result })));
}

export function compatCases(cassandra, settings) {
  const { Client, types, errors, ExecutionProfile, auth, policies, concurrent } = cassandra;
  const KS = settings.keyspace;
  const options = (extra = {}) => ({ contactPoints: settings.contactPoints, localDataCenter: "datacenter1", keyspace: KS, ...extra });
  const cases = [];
  const test = (name, run) => cases.push({ name, run });

  async function withClient(extra, body) {
    const client = new Client(options(extra));
    try {
      await client.connect();
      return await body(client);
    } finally {
      await client.shutdown();
    }
  }

  test("setup: keyspace and tables", async () => {
    const client = new Client({ contactPoints: settings.contactPoints, localDataCenter: "datacenter1" });
    await client.connect();
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await client.execute(`CREATE TABLE IF NOT EXISTS ${KS}.users (id uuid PRIMARY KEY, name text, email text, age int)`);
    await client.execute(`CREATE TABLE IF NOT EXISTS ${KS}.events (k text, t timeuuid, v int, PRIMARY KEY (k, t))`);
    await client.execute(`CREATE TYPE IF NOT EXISTS ${KS}.address (street text, zip int)`);
    await client.execute(`CREATE TABLE IF NOT EXISTS ${KS}.videos (user_id uuid, added_date timestamp, video_id uuid, title text, PRIMARY KEY (user_id, added_date)) WITH CLUSTERING ORDER BY (added_date DESC)`);
    await client.execute(`CREATE TABLE IF NOT EXISTS ${KS}.everything (id int PRIMARY KEY, l bigint, vi varint, de decimal, u uuid, tu timeuuid, ip inet, d date, ti time, du duration, tup frozen<tuple<int, text>>, m map<text, int>, s set<int>, li list<text>, b blob, ts timestamp, addr frozen<address>)`);
    await client.shutdown();
  });

  // --- issue #15's table, row by row -------------------------------------------------------
  test("undefined as a parameter leaves the column unset (useUndefinedAsUnset defaults to true)", () =>
    withClient({}, async (client) => {
      const id = types.Uuid.random();
      await client.execute("INSERT INTO users (id, name, email) VALUES (?, ?, ?)", [id, "Ada", "ada@example.com"], { prepare: true });
      await client.execute("UPDATE users SET name = ?, email = ? WHERE id = ?", ["Ada L.", undefined, id], { prepare: true });
      const row = (await client.execute("SELECT name, email FROM users WHERE id = ?", [id], { prepare: true })).first();
      equal([row.name, row.email], ["Ada L.", "ada@example.com"], "the undefined column kept its value");
    }));

  test("for await over a ResultSet with fetchSize 10 yields all 26 rows, fetching pages", () =>
    withClient({}, async (client) => {
      const k = `page-${settings.runtime}`;
      await client.execute("DELETE FROM events WHERE k = ?", [k], { prepare: true });
      for (let i = 0; i < 26; i++) await client.execute("INSERT INTO events (k, t, v) VALUES (?, ?, ?)", [k, types.TimeUuid.now(), i], { prepare: true });
      const result = await client.execute("SELECT v FROM events WHERE k = ?", [k], { prepare: true, fetchSize: 10 });
      equal(result.rowLength, 10, "the first page");
      ok(typeof result.pageState === "string" && result.pageState.length > 0, "pageState is a string");
      const values = [];
      for await (const row of result) values.push(row.v);
      equal(values, Array.from({ length: 26 }, (_, i) => i), "every row of every page, in order");
    }));

  test("rs.wasApplied() after INSERT ... IF NOT EXISTS", () =>
    withClient({}, async (client) => {
      const id = types.Uuid.random();
      const first = await client.execute("INSERT INTO users (id, name) VALUES (?, ?) IF NOT EXISTS", [id, "first"], { prepare: true });
      const second = await client.execute("INSERT INTO users (id, name) VALUES (?, ?) IF NOT EXISTS", [id, "second"], { prepare: true });
      equal([first.wasApplied(), second.wasApplied()], [true, false], "applied, then not");
      equal(second.first().name, "first", "the row that stopped it");
    }));

  test("two client.bulkLoad() calls at once both settle (cqlwire's own API under client.cqlwire)", () =>
    withClient({}, async (client) => {
      await client.execute(`CREATE TABLE IF NOT EXISTS ${KS}.bulk (id int PRIMARY KEY, v text)`);
      const csv = (from) => (async function* () {
        yield new TextEncoder().encode(Array.from({ length: 50 }, (_, i) => `${from + i},row ${from + i}\n`).join(""));
      })();
      const [a, b] = await Promise.all([
        client.cqlwire.bulkLoad(csv(0), { table: `${KS}.bulk`, columns: ["id", "v"], header: false }),
        client.cqlwire.bulkLoad(csv(50), { table: `${KS}.bulk`, columns: ["id", "v"], header: false }),
      ]);
      const summary = (s) => [s.status.error, s.counters.rowsOk, s.counters.rowsBad];
      equal([summary(a), summary(b)], [[null, 50, 0], [null, 50, 0]], "both loads wrote their rows");
      const count = await client.execute(`SELECT count(*) AS n FROM ${KS}.bulk`);
      equal(count.first().n.toString(), "100", "100 rows in the table");
    }));

  test("types.Uuid.random() and types.TimeUuid.now()", () =>
    withClient({}, async (client) => {
      const id = types.Uuid.random();
      ok(id instanceof types.Uuid, "a Uuid");
      ok(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id.toString()), `version 4: ${id}`);
      const t = types.TimeUuid.now();
      ok(t instanceof types.TimeUuid && t instanceof types.Uuid, "a TimeUuid is a Uuid");
      const k = `now-${settings.runtime}`;
      await client.execute("INSERT INTO events (k, t, v) VALUES (?, ?, ?)", [k, t, 1], { prepare: true });
      const row = (await client.execute("SELECT t, toTimestamp(t) AS at FROM events WHERE k = ? AND t = ?", [k, t], { prepare: true })).first();
      ok(row.t instanceof types.TimeUuid && row.t.equals(t), "read back as an equal TimeUuid");
      equal(row.at.getTime(), t.getDate().getTime(), "Cassandra's toTimestamp agrees with getDate()");
      const at = new Date("2020-02-02T02:02:02.222Z");
      equal(types.TimeUuid.fromDate(at).getDate(), at, "fromDate keeps the date");
      const range = await client.execute("SELECT v FROM events WHERE k = ? AND t >= ? AND t <= ?", [k, types.TimeUuid.min(t.getDate(), 0), types.TimeUuid.max(t.getDate(), 9999)], { prepare: true });
      equal(range.rows.map((r) => r.v), [1], "min/max bracket the row's millisecond");
    }));

  test("a server error is a DriverError and a ResponseError whose code is in responseErrorCodes", () =>
    withClient({}, async (client) => {
      const syntax = await rejects(client.execute("SELEC * FROM users"), (e) => e instanceof errors.DriverError && e instanceof errors.ResponseError, "syntax");
      equal(syntax.code, types.responseErrorCodes.syntaxError, "syntaxError");
      const invalid = await rejects(client.execute("SELECT * FROM no_such_table"), (e) => e instanceof errors.ResponseError, "invalid");
      equal(invalid.code, types.responseErrorCodes.invalid, "invalid");
      const exists = await rejects(client.execute("CREATE TABLE users (id int PRIMARY KEY)"), (e) => e instanceof errors.ResponseError, "exists");
      equal(exists.code, types.responseErrorCodes.alreadyExists, "alreadyExists");
    }));

  test("client.metadata.getTable(ks, t) describes the table", () =>
    withClient({}, async (client) => {
      const table = await client.metadata.getTable(KS, "events");
      equal(table.name, "events", "name");
      equal(table.partitionKeys.map((c) => c.name), ["k"], "partition key");
      equal(table.clusteringKeys.map((c) => c.name), ["t"], "clustering key");
      equal(table.columns.map((c) => [c.name, c.type.code]), [["k", types.dataTypes.text], ["t", types.dataTypes.timeuuid], ["v", types.dataTypes.int]], "columns (text is 10 in schema metadata, as DataStax's schema parser gives it)");
      ok(client.metadata.keyspaces[KS] !== undefined, "keyspaces are loaded on connect");
      equal(client.metadata.keyspaces[KS].strategy, "org.apache.cassandra.locator.SimpleStrategy", "strategy: the full class name, as DataStax");
      const udt = await client.metadata.getUdt(KS, "address");
      equal(udt.fields.map((f) => f.name), ["street", "zip"], "UDT fields");
    }));

  // --- calling styles ----------------------------------------------------------------------
  test("callbacks: connect, execute in its three forms, batch, shutdown", async () => {
    const client = new Client(options());
    equal((await viaCallback((cb) => client.connect(cb))).err, null, "connect(cb)");
    const a = await viaCallback((cb) => client.execute("SELECT key FROM system.local", cb));
    equal([a.err, a.result.first().key], [null, "local"], "execute(q, cb)");
    const b = await viaCallback((cb) => client.execute("SELECT key FROM system.local WHERE key = ?", ["local"], cb));
    equal([b.err, b.result.rowLength], [null, 1], "execute(q, params, cb)");
    const c = await viaCallback((cb) => client.execute("SELECT key FROM system.local WHERE key = ?", ["local"], { prepare: true }, cb));
    equal([c.err, c.result.rowLength], [null, 1], "execute(q, params, options, cb)");
    const bad = await viaCallback((cb) => client.execute("SELEC", cb));
    ok(bad.err instanceof errors.ResponseError && bad.result === undefined, "an error reaches the callback");
    const id = types.Uuid.random();
    const batch = await viaCallback((cb) => client.batch([
      { query: "INSERT INTO users (id, name) VALUES (?, ?)", params: [id, "batched"] },
      { query: "UPDATE users SET age = ? WHERE id = ?", params: [41, id] },
    ], { prepare: true }, cb));
    equal(batch.err, null, "batch(queries, options, cb)");
    const row = (await client.execute("SELECT name, age FROM users WHERE id = ?", [id], { prepare: true })).first();
    equal([row.name, row.age], ["batched", 41], "the batch was applied");
    equal((await viaCallback((cb) => client.shutdown(cb))).err, null, "shutdown(cb)");
  });

  test("eachRow with autoPage visits every row; without it, nextPage() fetches the next page", () =>
    withClient({}, async (client) => {
      const k = `page-${settings.runtime}`;
      const auto = [];
      const end = await viaCallback((cb) => client.eachRow("SELECT v FROM events WHERE k = ?", [k], { prepare: true, fetchSize: 10, autoPage: true }, (n, row) => auto.push([n, row.v]), cb));
      equal(end.err, null, "no error");
      // As DataStax 4.10: n counts within each page; the final result's rowLength is the total.
      equal(auto, Array.from({ length: 26 }, (_, i) => [i % 10, i]), "26 rows numbered 0-9 per page");
      equal([end.result.rowLength, end.result.nextPage], [26, undefined], "rowLength of every page, no nextPage");
      const manual = [];
      let pages = 0;
      await new Promise((resolve, reject) => {
        client.eachRow("SELECT v FROM events WHERE k = ?", [k], { prepare: true, fetchSize: 10 }, (_n, row) => manual.push(row.v), (err, result) => {
          if (err) return reject(err);
          pages++;
          if (result.nextPage) result.nextPage();
          else resolve();
        });
      });
      equal([pages, manual.length], [3, 26], "three pages by nextPage()");
    }));

  test("stream() yields every row (a Node Readable on Node)", () =>
    withClient({}, async (client) => {
      const k = `page-${settings.runtime}`;
      const stream = client.stream("SELECT v FROM events WHERE k = ?", [k], { prepare: true, fetchSize: 10 });
      if (settings.Readable) ok(stream instanceof settings.Readable, "a stream.Readable");
      const viaEvents = await new Promise((resolve, reject) => {
        const seen = [];
        stream.on("data", (row) => seen.push(row.v));
        stream.on("end", () => resolve(seen));
        stream.on("error", reject);
      });
      equal(viaEvents.length, 26, "data events for every row");
      const viaIteration = [];
      for await (const row of client.stream("SELECT v FROM events WHERE k = ?", [k], { prepare: true, fetchSize: 7 })) viaIteration.push(row.v);
      equal(viaIteration, Array.from({ length: 26 }, (_, i) => i), "async iteration too");
    }));

  // --- values ------------------------------------------------------------------------------
  test("DataStax value types bind and come back as the same types", () =>
    withClient({}, async (client) => {
      const values = {
        id: 1,
        l: types.Long.fromString("-9223372036854775808"),
        vi: types.Integer.fromString("123456789012345678901234567890"),
        de: types.BigDecimal.fromString("-12345.678900"),
        u: types.Uuid.fromString("123e4567-e89b-12d3-a456-426614174000"),
        tu: types.TimeUuid.fromDate(new Date(1e12), 7),
        ip: types.InetAddress.fromString("::ffff:10.0.0.1"),
        d: new types.LocalDate(2024, 2, 29),
        ti: types.LocalTime.fromString("23:59:59.123456789"),
        du: new types.Duration(1, 2, types.Long.fromNumber(3000000000)),
        tup: new types.Tuple(7, "seven"),
        m: { a: 1, b: 2 },
        s: [3, 1, 2],
        li: ["x", "y"],
        b: Uint8Array.of(0, 255),
        ts: new Date("2024-05-06T07:08:09.010Z"),
        addr: { street: "Main", zip: 12345 },
      };
      const names = Object.keys(values);
      await client.execute(`INSERT INTO everything (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`, names.map((n) => values[n]), { prepare: true });
      const row = (await client.execute("SELECT * FROM everything WHERE id = ?", [1], { prepare: true })).first();
      ok(row.l instanceof types.Long && row.l.toString() === "-9223372036854775808", `bigint as Long: ${row.l}`);
      ok(row.vi instanceof types.Integer && row.vi.toString() === "123456789012345678901234567890", `varint as Integer: ${row.vi}`);
      ok(row.de instanceof types.BigDecimal && row.de.toString() === "-12345.678900", `decimal as BigDecimal: ${row.de}`);
      ok(row.u instanceof types.Uuid && row.u.equals(values.u), "uuid as Uuid");
      ok(row.tu instanceof types.TimeUuid && row.tu.equals(values.tu), "timeuuid as TimeUuid");
      ok(row.ip instanceof types.InetAddress && row.ip.equals(values.ip), `inet as InetAddress: ${row.ip}`);
      ok(row.d instanceof types.LocalDate && row.d.toString() === "2024-02-29", `date as LocalDate: ${row.d}`);
      ok(row.ti instanceof types.LocalTime && row.ti.equals(values.ti), `time as LocalTime: ${row.ti}`);
      ok(row.du instanceof types.Duration && row.du.equals(values.du), `duration as Duration: ${row.du}`);
      ok(row.tup instanceof types.Tuple && row.tup.get(0) === 7 && row.tup.get(1) === "seven", "tuple as Tuple");
      equal(row.m, { a: 1, b: 2 }, "map as a plain object");
      equal(row.s, [1, 2, 3], "set as an array");
      equal(row.li, ["x", "y"], "list as an array");
      equal([...row.b], [0, 255], "blob bytes");
      equal(row.ts, values.ts, "timestamp as Date");
      equal(row.addr, { street: "Main", zip: 12345 }, "UDT as an object");
      equal(row.get(0), 1, "Row.get by index");
      equal(row.get("m"), { a: 1, b: 2 }, "Row.get by name");
      equal(row.keys().length, 17, "Row.keys");
      equal(row.values().length, 17, "Row.values");
      const visited = [];
      row.forEach((_v, name) => visited.push(name));
      equal(visited, row.keys(), "Row.forEach visits every column");
    }));

  test("encoding: map/set constructors and useBigIntAsLong/useBigIntAsVarint", () =>
    withClient({ encoding: { map: Map, set: Set, useBigIntAsLong: true, useBigIntAsVarint: true } }, async (client) => {
      const row = (await client.execute("SELECT l, vi, m, s FROM everything WHERE id = ?", [1], { prepare: true })).first();
      equal(row.l, -9223372036854775808n, "bigint");
      equal(row.vi, 123456789012345678901234567890n, "varint");
      equal(row.m, new Map([["a", 1], ["b", 2]]), "Map");
      equal(row.s, new Set([1, 2, 3]), "Set");
    }));

  test("unprepared statements infer the CQL type of DataStax values", () =>
    withClient({}, async (client) => {
      const id = types.Uuid.random();
      await client.execute("INSERT INTO everything (id, u, l, d) VALUES (2, ?, ?, ?)", [id, types.Long.fromNumber(5), types.LocalDate.fromString("1999-12-31")]);
      const row = (await client.execute("SELECT u, l, d FROM everything WHERE id = 2")).first();
      ok(row.u.equals(id) && row.l.equals(types.Long.fromNumber(5)) && row.d.toString() === "1999-12-31", "values read back");
    }));

  // --- results, hosts, profiles, errors ----------------------------------------------------
  test("ResultSet: columns as {name, type: {code, info}}, info with queriedHost", () =>
    withClient({}, async (client) => {
      const rs = await client.execute("SELECT id, m, s, tup FROM everything WHERE id = ?", [1], { prepare: true });
      equal(rs.columns, [
        { name: "id", type: { code: types.dataTypes.int, info: null } },
        { name: "m", type: { code: types.dataTypes.map, info: [{ code: types.dataTypes.varchar, info: null }, { code: types.dataTypes.int, info: null }] } },
        { name: "s", type: { code: types.dataTypes.set, info: { code: types.dataTypes.int, info: null } } },
        { name: "tup", type: { code: types.dataTypes.tuple, info: [{ code: types.dataTypes.int, info: null }, { code: types.dataTypes.varchar, info: null }] } },
      ], "columns (text is 10 in schema metadata, as DataStax's schema parser gives it)");
      equal(rs.info.queriedHost, settings.contactPoints[0], "queriedHost");
      equal(rs.info.warnings, undefined, "no warnings: undefined, as DataStax (not an empty array)");
    }));

  test("client.hosts holds Host objects; getState() counts connections", () =>
    withClient({}, async (client) => {
      equal(client.hosts.length, 1, "one host");
      const host = client.hosts.values()[0];
      equal([host.address, host.datacenter, host.rack, host.isUp()], [settings.contactPoints[0], "datacenter1", "rack1", true], "host fields");
      ok(/^5\.0\./.test(host.cassandraVersion), `cassandraVersion ${host.cassandraVersion}`);
      equal(host.getCassandraVersion().slice(0, 2), [5, 0], "getCassandraVersion");
      const state = client.getState();
      equal(state.getConnectedHosts().map((h) => h.address), [host.address], "connected hosts");
      ok(state.getOpenConnections(host) >= 1, "open connections");
    }));

  test("ExecutionProfile by name sets the consistency; PlainTextAuthProvider and policies are accepted", async () => {
    const profile = new ExecutionProfile("strict", { consistency: types.consistencies.all, readTimeout: 30000 });
    const client = new Client(options({
      profiles: [profile],
      authProvider: new auth.PlainTextAuthProvider("cassandra", "cassandra"),
      policies: {
        loadBalancing: new policies.loadBalancing.TokenAwarePolicy(new policies.loadBalancing.DCAwareRoundRobinPolicy("datacenter1")),
        retry: new policies.retry.RetryPolicy(),
        reconnection: new policies.reconnection.ExponentialReconnectionPolicy(1000, 60000),
      },
    }));
    try {
      const rs = await client.execute("SELECT key FROM system.local", [], { executionProfile: "strict" });
      equal(rs.info.achievedConsistency, types.consistencies.all, "the profile's consistency");
      await rejects(client.execute("SELECT key FROM system.local", [], { executionProfile: "missing" }), (e) => e instanceof Error, "unknown profile");
    } finally {
      await client.shutdown();
    }
  });

  test("NoHostAvailableError.innerErrors is keyed by host; ArgumentError for bad calls", async () => {
    const client = new Client({ contactPoints: ["127.0.0.1:1"], localDataCenter: "datacenter1", socketOptions: { connectTimeout: 2000 } });
    const e = await rejects(client.connect(), (x) => x instanceof errors.NoHostAvailableError && x instanceof errors.DriverError, "unreachable");
    equal(Object.keys(e.innerErrors), ["127.0.0.1:1"], "keyed by host");
    await client.shutdown();
    await withClient({}, async (c) => {
      await rejects(c.execute(""), (x) => x instanceof errors.ArgumentError && x instanceof errors.DriverError, "empty query");
    });
    ok(new errors.OperationTimedOutError("t", "h:1").host === "h:1", "OperationTimedOutError has host");
    ok(new errors.NotSupportedError("x") instanceof errors.DriverError, "NotSupportedError");
  });

  test("concurrent.executeConcurrent runs an array of parameters", () =>
    withClient({}, async (client) => {
      const k = `conc-${settings.runtime}`;
      const params = Array.from({ length: 40 }, (_, i) => [k, types.TimeUuid.now(), i]);
      const result = await concurrent.executeConcurrent(client, "INSERT INTO events (k, t, v) VALUES (?, ?, ?)", params, { concurrencyLevel: 8 });
      equal([result.totalExecuted, result.errors.length], [40, 0], "all executed");
      const rs = await client.execute("SELECT count(*) AS n FROM events WHERE k = ?", [k], { prepare: true });
      ok(rs.first().n.toNumber() >= 40, "rows written");
    }));

  test("timestamps: monotonic client-side by default, a custom TimestampGenerator is used, null leaves them to the server", async () => {
    const generator = new policies.timestampGeneration.MonotonicTimestampGenerator();
    const stamps = Array.from({ length: 1000 }, () => generator.next());
    ok(stamps.every((t, i) => i === 0 || t > stamps[i - 1]), "strictly increasing within a millisecond");
    class Fixed extends policies.timestampGeneration.TimestampGenerator {
      next() {
        return 1234567;
      }
    }
    const id = types.Uuid.random();
    await withClient({ policies: { timestampGeneration: new Fixed() } }, async (client) => {
      await client.execute("INSERT INTO users (id, name) VALUES (?, ?)", [id, "stamped"], { prepare: true });
      const row = (await client.execute("SELECT writetime(name) AS w FROM users WHERE id = ?", [id], { prepare: true })).first();
      equal(row.w.toString(), "1234567", "the generator's timestamp");
    });
    await withClient({ policies: { timestampGeneration: null } }, async (client) => {
      await client.execute("INSERT INTO users (id, name) VALUES (?, ?)", [id, "server"], { prepare: true });
      const row = (await client.execute("SELECT writetime(name) AS w FROM users WHERE id = ?", [id], { prepare: true })).first();
      ok(row.w.greaterThan(types.Long.fromNumber(1234567)), `the server's timestamp: ${row.w}`);
    });
    await withClient({}, async (client) => {
      const before = Date.now() * 1000;
      await client.execute("INSERT INTO users (id, name) VALUES (?, ?)", [id, "default"], { prepare: true, timestamp: types.Long.fromNumber(before + 5) });
      const row = (await client.execute("SELECT writetime(name) AS w FROM users WHERE id = ?", [id], { prepare: true })).first();
      equal(row.w.toString(), String(before + 5), "a query's own timestamp (a Long) wins");
    });
  });

  test("mapping.Mapper: insert, get, find with orderBy/limit, update, remove, mapWithQuery, camelCase mappings", () =>
    withClient({}, async (client) => {
      const { Mapper, UnderscoreCqlToCamelCaseMappings } = cassandra.mapping;
      const mapper = new Mapper(client, { models: { Video: { tables: ["videos"], mappings: new UnderscoreCqlToCamelCaseMappings(), columns: { video_id: "id" } } } });
      const videos = mapper.forModel("Video");
      const userId = types.Uuid.random();
      const at = (n) => new Date(Date.UTC(2024, 0, n));
      const ids = [1, 2, 3].map(() => types.Uuid.random());
      for (const n of [1, 2, 3]) await videos.insert({ userId, addedDate: at(n), id: ids[n - 1], title: `video ${n}`, notAColumn: "ignored" });
      const one = await videos.get({ userId, addedDate: at(2) });
      equal(Object.keys(one).sort(), ["addedDate", "id", "title", "userId"], "properties by the mappings");
      ok(one.id.equals(ids[1]) && one.title === "video 2" && one.addedDate.getTime() === at(2).getTime(), "get by primary key");
      const found = await videos.find({ userId }, { orderBy: { addedDate: "asc" }, limit: 2 });
      equal(found.toArray().map((v) => v.title), ["video 1", "video 2"], "find with orderBy and limit");
      equal(found.length, 2, "Result.length");
      const applied = await videos.update({ userId, addedDate: at(3), title: "renamed" }, { ifExists: true });
      equal(applied.wasApplied(), true, "update IF EXISTS");
      equal((await videos.get({ userId, addedDate: at(3) })).title, "renamed", "updated");
      await videos.remove({ userId, addedDate: at(1) });
      equal(await videos.get({ userId, addedDate: at(1) }), null, "removed");
      const titlesOf = videos.mapWithQuery("SELECT title FROM videos WHERE user_id = ?", (doc) => [doc.userId]);
      equal((await titlesOf({ userId })).toArray().map((v) => v.title), ["renamed", "video 2"], "mapWithQuery");
      equal((await videos.findAll({ limit: 1 })).length, 1, "findAll with a limit");
    }));

  test("a policy whose JavaScript would have to run is a NotSupportedError at construction, naming the option", () => {
    const lb = policies.loadBalancing;
    class MyPlan extends lb.LoadBalancingPolicy {
      newQueryPlan(keyspace, info, callback) {
        callback(null, [][Symbol.iterator]());
      }
    }
    class MyRetry extends policies.retry.RetryPolicy {
      onReadTimeout() {
        return this.rethrowResult();
      }
    }
    const refused = [
      [{ policies: { loadBalancing: new MyPlan() } }, "policies.loadBalancing: MyPlan is not supported"],
      [{ policies: { loadBalancing: new lb.TokenAwarePolicy(new MyPlan()) } }, "policies.loadBalancing.childPolicy: MyPlan is not supported"],
      [{ policies: { loadBalancing: { newQueryPlan() {} } } }, "policies.loadBalancing: Object is not supported"],
      [{ policies: { retry: new MyRetry() } }, "policies.retry: MyRetry is not supported"],
      [{ policies: { speculativeExecution: new policies.speculativeExecution.ConstantSpeculativeExecutionPolicy(10, 9) } }, "policies.speculativeExecution: maxSpeculativeExecutions 9: cqlwire runs 1 to 5"],
      [{ profiles: [new ExecutionProfile("other", { retry: new policies.retry.FallthroughRetryPolicy() })] }, 'profiles "other".retry: per-profile retry policies are not supported'],
    ];
    for (const [extra, start] of refused) {
      let caught;
      try {
        new Client(options(extra));
      } catch (e) {
        caught = e;
      }
      ok(caught instanceof errors.NotSupportedError && caught instanceof errors.DriverError, `${start}: got ${caught}`);
      ok(caught.message.startsWith(start), `message: ${caught.message}`);
    }
    // A request tracker is called, as DataStax's, once it is one: any other object is DataStax's TypeError.
    let notTracker;
    try {
      new Client(options({ requestTracker: { onSuccess() {}, onError() {} } }));
    } catch (e) {
      notTracker = e;
    }
    ok(notTracker instanceof TypeError && notTracker.message === "requestTracker must be an instance of RequestTracker", `requestTracker: got ${notTracker}`);
    // The built-in policies are followed by the core: accepted.
    new Client(options({
      policies: {
        loadBalancing: new lb.AllowListPolicy(new lb.TokenAwarePolicy(new lb.DCAwareRoundRobinPolicy("datacenter1")), ["127.0.0.1:9042"]),
        retry: new policies.retry.IdempotenceAwareRetryPolicy(new policies.retry.RetryPolicy()),
        reconnection: new policies.reconnection.ConstantReconnectionPolicy(500),
        speculativeExecution: new policies.speculativeExecution.ConstantSpeculativeExecutionPolicy(50, 2),
        addressResolution: new policies.addressResolution.AddressTranslator(),
      },
    }));
    // An address translator is asked where to dial (the host's side, not the core's): taken, subclasses too.
    class MyTranslator extends policies.addressResolution.AddressTranslator {}
    new Client(options({ policies: { addressResolution: new MyTranslator() } }));
  });

  test("per-query retry, host and customPayload are refused, not ignored", () =>
    withClient({}, async (client) => {
      const query = "SELECT key FROM system.local";
      await rejects(client.execute(query, [], { retry: new policies.retry.RetryPolicy() }), (e) => e instanceof errors.NotSupportedError && e.message.startsWith("options.retry:"), "retry");
      await rejects(client.execute(query, [], { host: client.hosts.values()[0] }), (e) => e instanceof errors.NotSupportedError && e.message.startsWith("options.host:"), "host");
      await rejects(client.execute(query, [], { customPayload: { k: new Uint8Array(1) } }), (e) => e instanceof errors.NotSupportedError && e.message.startsWith("options.customPayload:"), "customPayload");
    }));

  test("readTimeout 0 is no timeout; getReplicas takes a Buffer routing key, synchronously", () =>
    withClient({ socketOptions: { readTimeout: 0 } }, async (client) => {
      const rs = await client.execute("SELECT key FROM system.local", [], { readTimeout: 0 });
      equal([rs.rowLength, rs.info.triedHosts], [1, { [settings.contactPoints[0]]: null }], "answered, nothing retried (the answering node: null, as DataStax)");
      const key = new TextEncoder().encode("some partition");
      const replicas = client.getReplicas(KS, key);
      ok(Array.isArray(replicas), "an array, not a promise");
      equal(replicas.map((h) => h.address), [settings.contactPoints[0]], "the one node");
      equal(client.getReplicas(KS, 0n).map((h) => h.address), [settings.contactPoints[0]], "a bigint token too");
      const viaMetadata = client.metadata.getReplicas(KS, key);
      equal([Array.isArray(viaMetadata), viaMetadata[0] === replicas[0]], [true, true], "metadata.getReplicas: the same Host, synchronously");
      ok(client.metadata.keyspaces[KS] !== undefined, "the rest of metadata is the core's");
    }));

  test("metadata token API: getTokenRanges() Set of TokenRange over the ring, newToken = the server's token(), getTokenRangesForHost", () =>
    withClient({}, async (client) => {
      const { Token, TokenRange } = cassandra.token;
      const ranges = client.metadata.getTokenRanges();
      ok(ranges instanceof Set && ranges.size > 0, "a Set, synchronously");
      ok([...ranges].every((r) => r instanceof TokenRange && r.start instanceof Token && r.end instanceof Token), "of TokenRange with Token ends");
      // The ranges tile the ring: their widths add up to 2^64.
      const width = (r) => ((BigInt(r.end.toString()) - BigInt(r.start.toString())) % (1n << 64n) + (1n << 64n)) % (1n << 64n) || (1n << 64n);
      equal([...ranges].reduce((sum, r) => sum + width(r), 0n), 1n << 64n, "the ranges cover the ring once");
      const host = client.hosts.values()[0];
      equal(client.metadata.getTokenRangesForHost(KS, host).size, ranges.size, "one node owns every range (RF 1)");
      equal(client.metadata.getTokenRangesForHost(KS, "10.9.9.9:9042"), null, "no such host");
      for (const k of ["a", "routing", "some partition key"]) {
        await client.execute("INSERT INTO events (k, t, v) VALUES (?, now(), 1)", [k], { prepare: true });
        const serverToken = (await client.execute("SELECT token(k) AS t FROM events WHERE k = ? LIMIT 1", [k], { prepare: true })).first().t;
        const t = client.metadata.newToken(new TextEncoder().encode(k));
        equal(t.getValue().toString(), serverToken.toString(), `newToken(routing key of "${k}") is token(k)`);
        equal([...ranges].filter((r) => r.contains(t)).length, 1, `exactly one range holds the token of "${k}"`);
        const owner = [...ranges].find((r) => r.contains(t));
        equal(client.metadata.getReplicas(KS, owner).map((h) => h.address), [host.address], "getReplicas of a TokenRange");
        equal(client.metadata.getReplicas(KS, t).map((h) => h.address), [host.address], "getReplicas of a Token");
      }
      // Ring arithmetic, against what cassandra-driver 4.10.0's own TokenRange answers for the
      // same ranges (its Murmur3Tokenizer, run once to make these vectors).
      const tok = (s) => client.metadata.newToken(s);
      const range = (a, b) => client.metadata.newTokenRange(tok(a), tok(b));
      const SPLITS = [["-9223372036854775808", "-9223372036854775808", 2, ["]-9223372036854775808, 0]", "]0, -9223372036854775808]"]], ["-9223372036854775808", "-9223372036854775808", 3, ["]-9223372036854775808, -3074457345618258603]", "]-3074457345618258603, 3074457345618258602]", "]3074457345618258602, -9223372036854775808]"]], ["0", "10", 3, ["]0, 4]", "]4, 7]", "]7, 10]"]], ["100", "-100", 4, ["]100, 4611686018427387954]", "]4611686018427387954, -9223372036854775807]", "]-9223372036854775807, -4611686018427387953]", "]-4611686018427387953, -100]"]], ["9223372036854775000", "-9223372036854775000", 5, ["]9223372036854775000, 9223372036854775323]", "]9223372036854775323, 9223372036854775646]", "]9223372036854775646, -9223372036854775646]", "]-9223372036854775646, -9223372036854775323]", "]-9223372036854775323, -9223372036854775000]"]], ["-5", "-9223372036854775808", 3, ["]-5, 3074457345618258599]", "]3074457345618258599, 6148914691236517203]", "]6148914691236517203, -9223372036854775808]"]], ["-9223372036854775808", "7", 2, ["]-9223372036854775808, -4611686018427387900]", "]-4611686018427387900, 7]"]]];
      for (const [a, b, n, parts] of SPLITS) equal(range(a, b).splitEvenly(n).map(String), parts, `]${a}, ${b}].splitEvenly(${n})`);
      const CONTAINS = [["-9223372036854775808", "-9223372036854775808", "0", true], ["-9223372036854775808", "-9223372036854775808", "-9223372036854775808", true], ["5", "5", "5", false], ["100", "-100", "200", true], ["100", "-100", "-200", true], ["100", "-100", "0", false], ["100", "-100", "-100", true], ["100", "-100", "100", false], ["-5", "-9223372036854775808", "-9223372036854775808", true], ["-5", "-9223372036854775808", "-5", false], ["-5", "-9223372036854775808", "7", true]];
      for (const [a, b, t, inside] of CONTAINS) equal(range(a, b).contains(tok(t)), inside, `]${a}, ${b}] contains ${t}`);
      equal(range("100", "-100").unwrap().map(String), ["]100, -9223372036854775808]", "]-9223372036854775808, -100]"], "unwrap of a wrapped range");
      equal(range("-5", "-9223372036854775808").unwrap().map(String), ["]-5, -9223372036854775808]"], "a range up to the ring's end is not wrapped");
      equal([range("5", "5").isEmpty(), range("-9223372036854775808", "-9223372036854775808").isEmpty()], [true, false], "]t, t] is empty, ]min, min] the whole ring");
      const parts = range("0", "10").splitEvenly(3);
      equal([parts[0].equals(range("0", "4")), parts[0].compare(parts[1]) < 0, parts[1].compare(parts[0]) > 0], [true, true, true], "equals and compare");
    }));

  test("DSE-only features say NotSupportedError", async () => {
    let caught;
    try {
      void cassandra.geometry.Point;
    } catch (e) {
      caught = e;
    }
    ok(caught instanceof errors.NotSupportedError, `geometry: ${caught}`);
  });

  return cases;
}

/** Runs the cases in order; prints one line per case; resolves to the number of failures. */
export async function runCompatCases(cases, label, print) {
  let failures = 0;
  for (const c of cases) {
    let timer;
    // A case that hangs (a promise that never settles) fails by name instead of stalling the run.
    const hang = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new CompatAssertionError("did not settle within 120 s")), 120_000);
    });
    try {
      await Promise.race([c.run(), hang]);
      print(`ok    ${label}: ${c.name}`);
    } catch (e) {
      failures++;
      print(`FAIL  ${label}: ${c.name}\n      ${String(e && e.stack || e).split("\n").slice(0, 6).join("\n      ")}`);
    } finally {
      clearTimeout(timer);
    }
  }
  return failures;
}
