/**
 * The driver conformance suite, written once and run unchanged on Node (vitest), workerd and
 * Deno, each against its own built entrypoint in dist/. It uses no runtime API beyond
 * ECMAScript, so it loads inside a Worker too.
 *
 *   conformanceCases({ Client, types, errors }, assert, { contactPoints, keyspace })
 *     -> [{ name, run: async () => void }]
 *
 * `errors` holds the driver's error classes (the module namespace will do); `assert` is an
 * adapter with `ok(value, message)` and `equal(actual, expected, message)` (deep equality).
 * Each case stands alone: it creates what it reads, so cases may run in any order or alone.
 */

/** Rows covering each scalar type's edges; hints type the unprepared inserts. */
const TYPED_COLUMNS = ["id", "big", "name", "data", "ok", "score", "uid", "at"];
const TYPED_HINTS = ["int", "bigint", "text", "blob", "boolean", "double", "uuid", "timestamp"];
function typedRows() {
  return [
    [1, 9223372036854775807n, "ascii", Uint8Array.of(0, 1, 2, 255), true, 1.5, "123e4567-e89b-12d3-a456-426614174000", new Date("2024-01-02T03:04:05.678Z")],
    [2, -9223372036854775808n, "émoji 🎉", new Uint8Array(0), false, -0.25, "00000000-0000-0000-0000-000000000000", new Date(-86400000)],
    [3, 0n, "", Uint8Array.of(7), true, Number.MAX_VALUE, "ffffffff-ffff-ffff-ffff-ffffffffffff", new Date(0)],
  ];
}

const PAGED_ROWS = 250;

export function conformanceCases(driver, assert, settings) {
  const { Client, types, errors } = driver;
  const { ArgumentError, NoHostAvailableError, ResponseError } = errors;
  for (const [name, cls] of Object.entries({ Client, ArgumentError, NoHostAvailableError, ResponseError })) {
    if (typeof cls !== "function") throw new Error(`conformance: the driver under test exports no ${name}`);
  }
  const KS = settings.keyspace;
  const contactPoints = settings.contactPoints;
  const localDataCenter = settings.localDataCenter ?? "datacenter1";

  const client = (extra = {}) => new Client({ contactPoints, localDataCenter, ...extra });

  async function withClient(extra, body) {
    const c = client(extra);
    try {
      return await body(c);
    } finally {
      await c.shutdown();
    }
  }

  async function ensureKeyspace(c) {
    await c.execute(`CREATE KEYSPACE IF NOT EXISTS ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  }

  async function rejection(promiseFn, check, what) {
    let caught;
    try {
      await promiseFn();
    } catch (e) {
      caught = e;
    }
    assert.ok(caught !== undefined, `${what}: expected a rejection, the call succeeded`);
    assert.ok(check(caught), `${what}: unexpected error ${caught?.name}: ${caught?.message}`);
    return caught;
  }

  return [
    {
      name: "float and double keep NaN, -0, +Infinity and -Infinity (prepared and unprepared, in a list too)",
      run: () =>
        withClient({}, async (c) => {
          await ensureKeyspace(c);
          await c.execute(`DROP TABLE IF EXISTS ${KS}.float_edges`);
          await c.execute(`CREATE TABLE ${KS}.float_edges (id int PRIMARY KEY, d double, f float, l list<double>)`);
          const edges = [NaN, -0, Infinity, -Infinity];
          const insert = `INSERT INTO ${KS}.float_edges (id, d, f, l) VALUES (?, ?, ?, ?)`;
          for (let i = 0; i < edges.length; i++) {
            const values = [i, edges[i], edges[i], [edges[i], 0]];
            if (i % 2 === 0) await c.execute(insert, values, { prepare: true });
            else await c.execute(insert, values, { hints: ["int", "double", "float", "list<double>"] });
          }
          for (const prepare of [true, false]) {
            const rs = await c.execute(`SELECT id, d, f, l FROM ${KS}.float_edges WHERE id IN (0, 1, 2, 3)`, [], { prepare });
            const got = rs.rows.map((r) => [r.id, r.d, r.f, r.l]);
            assert.equal(got, edges.map((x, i) => [i, x, x, [x, 0]]), `float edges (prepare=${prepare})`);
          }
        }),
    },
    {
      // Each container decodes its elements through its own path (collections, tuples,
      // UDTs, packed vectors), apart from the top-level columns above.
      name: "NaN, -0, +Infinity and -Infinity keep inside map, set, tuple, UDT and vector (float and double)",
      run: () =>
        withClient({}, async (c) => {
          await ensureKeyspace(c);
          await c.execute(`DROP TABLE IF EXISTS ${KS}.float_nested`);
          await c.execute(`DROP TYPE IF EXISTS ${KS}.float_pair`);
          await c.execute(`CREATE TYPE ${KS}.float_pair (f float, d double)`);
          await c.execute(
            `CREATE TABLE ${KS}.float_nested (id int PRIMARY KEY, mf map<int, float>, md map<double, double>, sd set<double>, ` +
              `lf list<float>, t tuple<float, double>, u frozen<float_pair>, vf vector<float, 4>, vd vector<double, 4>)`,
          );
          const edges = [NaN, -0, Infinity, -Infinity];
          // Cassandra orders double keys and set elements by Double.compare: -0 before 0, NaN last.
          const ordered = [-Infinity, -0, Infinity, NaN];
          const rows = edges.map((x, i) => ({
            id: i,
            mf: new Map(edges.map((y, j) => [j, y])),
            md: new Map(ordered.map((y) => [y, x])),
            sd: ordered,
            lf: [x, -x, x],
            t: [x, -x],
            u: { f: x, d: -x },
            vf: Float32Array.from([x, -x, 0, x]),
            vd: Float64Array.from([x, -x, 0, x]),
          }));
          const columns = Object.keys(rows[0]);
          const insert = `INSERT INTO ${KS}.float_nested (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
          for (const row of rows) await c.execute(insert, columns.map((k) => row[k]), { prepare: true });
          for (const prepare of [true, false]) {
            const rs = await c.execute(`SELECT ${columns.join(", ")} FROM ${KS}.float_nested WHERE id IN (0, 1, 2, 3)`, [], { prepare });
            assert.equal(rs.rows.map((r) => Object.fromEntries(columns.map((k) => [k, r[k]]))), rows, `nested float edges (prepare=${prepare})`);
          }
        }),
    },
    {
      name: "connect; system.local answers with a 5.0.x release",
      run: () =>
        withClient({}, async (c) => {
          await c.connect();
          const rs = await c.execute("SELECT release_version, cluster_name, data_center FROM system.local");
          const row = rs.first();
          assert.ok(row, "system.local returned no row");
          assert.ok(/^5\.0\.\d+/.test(String(row.release_version)), `release_version is ${row.release_version}, expected 5.0.x`);
          assert.equal(rs.columns.map((col) => col.name), ["release_version", "cluster_name", "data_center"], "column names");
          assert.equal(rs.columns[0].type, "text", "release_version column type");
        }),
    },
    {
      name: "prepared and unprepared inserts of int/bigint/text/blob/boolean/double/uuid/timestamp read back equal",
      run: () =>
        withClient({}, async (c) => {
          await ensureKeyspace(c);
          await c.execute(`DROP TABLE IF EXISTS ${KS}.basic`);
          await c.execute(`CREATE TABLE ${KS}.basic (id int PRIMARY KEY, big bigint, name text, data blob, ok boolean, score double, uid uuid, at timestamp)`);
          const rows = typedRows();
          const insert = `INSERT INTO ${KS}.basic (${TYPED_COLUMNS.join(", ")}) VALUES (${TYPED_COLUMNS.map(() => "?").join(", ")})`;
          await c.execute(insert, rows[0], { prepare: true });
          await c.execute(insert, rows[1], { hints: TYPED_HINTS });
          await c.execute(insert, rows[2], { hints: TYPED_HINTS });
          for (const prepare of [true, false]) {
            const rs = await c.execute(`SELECT ${TYPED_COLUMNS.join(", ")} FROM ${KS}.basic WHERE id IN (1, 2, 3)`, [], { prepare });
            assert.equal(rs.rows.length, 3, `row count (prepare=${prepare})`);
            for (let i = 0; i < rows.length; i++) {
              const got = TYPED_COLUMNS.map((col) => rs.rows[i][col]);
              assert.ok(got[3] instanceof Uint8Array, `blob comes back as a Uint8Array (prepare=${prepare}), got ${Object.prototype.toString.call(got[3])}`);
              assert.ok(got[7] instanceof Date, `timestamp comes back as a Date (prepare=${prepare})`);
              assert.equal(got, rows[i], `row id=${rows[i][0]} (prepare=${prepare})`);
            }
          }
        }),
    },
    {
      name: "paging: pageState, stream() and eachPage() see every row once",
      run: () =>
        withClient({}, async (c) => {
          await ensureKeyspace(c);
          await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.paged (p int, n int, PRIMARY KEY (p, n))`);
          await c.execute(`TRUNCATE ${KS}.paged`);
          const inserts = [];
          for (let n = 0; n < PAGED_ROWS; n++) inserts.push(c.execute(`INSERT INTO ${KS}.paged (p, n) VALUES (?, ?)`, [1, n], { prepare: true }));
          await Promise.all(inserts);
          const select = `SELECT n FROM ${KS}.paged WHERE p = ?`;
          const first = await c.execute(select, [1], { prepare: true, pageSize: 100 });
          assert.equal(first.rows.length, 100, "first page size");
          assert.ok(typeof first.pageState === "string" && first.pageState.length > 0, "first page has a pageState");
          const second = await c.execute(select, [1], { prepare: true, pageSize: 100, pageState: first.pageState });
          assert.equal(second.rows.map((r) => r.n), range(100, 200), "second page continues at 100");
          const third = await c.execute(select, [1], { prepare: true, pageSize: 100, pageState: second.pageState });
          assert.equal(third.rows.length, 50, "third page size");
          assert.equal(third.pageState, null, "last page has no pageState");
          const streamed = [];
          for await (const row of c.stream(select, [1], { prepare: true, pageSize: 64 })) streamed.push(row.n);
          assert.equal(streamed, range(0, PAGED_ROWS), "stream() yields every row once, in order");
          let pages = 0;
          await c.eachPage(select, [1], { prepare: true, pageSize: 100 }, () => void pages++);
          assert.equal(pages, 3, "eachPage() page count");
        }),
    },
    {
      name: "batch: logged with prepared statements, unlogged unprepared",
      run: () =>
        withClient({}, async (c) => {
          await ensureKeyspace(c);
          await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.kv (k text PRIMARY KEY, v int)`);
          await c.execute(`TRUNCATE ${KS}.kv`);
          await c.batch([
            { query: `INSERT INTO ${KS}.kv (k, v) VALUES (?, ?)`, params: ["a", 1] },
            { query: `INSERT INTO ${KS}.kv (k, v) VALUES (?, ?)`, params: ["b", 2] },
          ], { prepare: true });
          await c.batch([`INSERT INTO ${KS}.kv (k, v) VALUES ('c', 3)`], { logged: false });
          const rs = await c.execute(`SELECT k, v FROM ${KS}.kv WHERE k IN ('a', 'b', 'c')`);
          assert.equal(rs.rows.map((r) => [r.k, r.v]).sort(), [["a", 1], ["b", 2], ["c", 3]], "rows written by the batches");
        }),
    },
    {
      name: "server errors are ResponseError with the protocol's fields; the connection survives",
      run: () =>
        withClient({}, async (c) => {
          const syntax = await rejection(() => c.execute("SELEC nonsense"), (e) => e instanceof ResponseError, "syntax error");
          assert.equal([syntax.code, syntax.codeName], [0x2000, "SyntaxError"], "syntax error code and name");
          const invalid = await rejection(() => c.execute("SELECT * FROM no_such_ks.t"), (e) => e instanceof ResponseError, "unknown keyspace");
          assert.equal(invalid.codeName, "Invalid", "unknown keyspace code name");
          await ensureKeyspace(c);
          const exists = await rejection(
            () => c.execute(`CREATE KEYSPACE ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`),
            (e) => e instanceof ResponseError,
            "keyspace exists",
          );
          assert.equal([exists.codeName, exists.keyspace], ["AlreadyExists", KS], "AlreadyExists names the keyspace");
          await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.kv (k text PRIMARY KEY, v int)`);
          await rejection(
            () => c.execute(`INSERT INTO ${KS}.kv (k, v) VALUES (?, ?)`, ["x"], { prepare: true }),
            (e) => e instanceof ArgumentError && /2 bind marker/.test(e.message),
            "too few parameters",
          );
          await rejection(
            () => c.execute(`INSERT INTO ${KS}.kv (k, v) VALUES (?, ?)`, ["x", "not an int"], { prepare: true }),
            // CqlTypeError is not among the public exports: its name, code and message are the contract.
            (e) =>
              e?.name === "CqlTypeError" && e.code === "ERR_CQL_TYPE" &&
              e.message === 'cannot encode "not an int" as int: expected a number, got a string',
            "a text value for an int column",
          );
          assert.equal((await c.execute("SELECT key FROM system.local")).rows.length, 1, "a query after the errors");
        }),
    },
    {
      name: "no server on the port: NoHostAvailableError naming the host, from the refused connection (not a timeout)",
      run: async () => {
        const c = client({ contactPoints: ["127.0.0.1:1"] });
        try {
          const e = await rejection(() => c.connect(), (e) => e instanceof NoHostAvailableError, "connect to a dead port");
          const inner = e.innerErrors["127.0.0.1:1"];
          assert.equal([e.code, Object.keys(e.innerErrors), inner?.name, inner?.code], ["ERR_NO_HOST", ["127.0.0.1:1"], "ConnectionError", "ERR_CONNECTION"], "the refusal");
          // The OS wording of the refusal differs by runtime; what it is not is a timeout.
          assert.ok(inner.message.startsWith("could not connect: ") && inner.message.endsWith(" (host 127.0.0.1:1)"), `inner message: ${inner.message}`);
          assert.equal(e.message, `All host(s) tried for query failed: 127.0.0.1:1: ${inner.message}`, "the message");
        } finally {
          await c.shutdown();
        }
      },
    },
    {
      name: "invalid options throw ArgumentError naming each bad field",
      run: async () => {
        let caught;
        try {
          client({ contactPoints: [], pooling: { coreConnectionsPerHost: 0 } });
        } catch (e) {
          caught = e;
        }
        assert.ok(caught instanceof ArgumentError, `expected an ArgumentError, got ${caught}`);
        assert.ok(/contactPoints/.test(caught.message), `message names contactPoints: ${caught.message}`);
        assert.ok(/pooling\.coreConnectionsPerHost/.test(caught.message), `message names pooling.coreConnectionsPerHost: ${caught.message}`);
      },
    },
    {
      name: "keyspace option and per-query consistency",
      run: async () => {
        await withClient({}, async (c) => {
          await ensureKeyspace(c);
          await c.execute(`CREATE TABLE IF NOT EXISTS ${KS}.kv (k text PRIMARY KEY, v int)`);
          await c.execute(`INSERT INTO ${KS}.kv (k, v) VALUES ('ks-option', 42)`);
        });
        await withClient({ keyspace: KS }, async (c) => {
          const rs = await c.execute("SELECT k, v FROM kv WHERE k = ?", ["ks-option"], { prepare: true, consistency: types.consistencies.one });
          assert.equal(rs.first()?.v, 42, "row read through the keyspace option");
        });
      },
    },
  ];
}

function range(from, to) {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
