/**
 * CommonJS code in the DataStax driver's callback style, unchanged but for the `require`:
 * `node callbacks.cjs HOST:PORT KEYSPACE`. Each step nests in the previous one's callback, as
 * such code does; a failure prints and exits 1, and a watchdog fails a callback never called.
 */
"use strict";
const cassandra = require("cqlwire/compat");
const assert = require("node:assert/strict");

const [host, keyspace] = process.argv.slice(2);
const client = new cassandra.Client({ contactPoints: [host], localDataCenter: "datacenter1", keyspace });
const steps = [];
const watchdog = setTimeout(() => fail(new Error(`a callback was never called after: ${steps.join(", ")}`)), 60_000);

function fail(err) {
  console.log(`FAIL  node cjs: ${err && err.stack || err}`);
  process.exit(1);
}

function step(name, err) {
  if (err) fail(err);
  steps.push(name);
  console.log(`ok    node cjs: ${name}`);
}

assert.equal(typeof cassandra.types.Uuid.random, "function");
// cqlwire's own API is require()-able too.
assert.equal(typeof require("cqlwire").Client, "function");
client.connect((err) => {
  step("connect(callback)", err);
  const id = cassandra.types.Uuid.random();
  const insert = "INSERT INTO users (id, name, email) VALUES (?, ?, ?)";
  client.execute(insert, [id, "cjs", undefined], { prepare: true }, (err) => {
    step("execute(query, params, options, callback) with an undefined parameter", err);
    client.execute("SELECT name, email FROM users WHERE id = ?", [id], { prepare: true }, (err, result) => {
      step("execute read back", err);
      try {
        const row = result.first();
        assert.equal(row.name, "cjs");
        assert.equal(row.email, null);
        assert.ok(row.get("name") === "cjs" && row.keys().join() === "name,email");
      } catch (e) {
        fail(e);
      }
      client.execute("SELEC", (err) => {
        try {
          assert.ok(err instanceof cassandra.errors.ResponseError && err instanceof cassandra.errors.DriverError);
          assert.equal(err.code, cassandra.types.responseErrorCodes.syntaxError);
        } catch (e) {
          fail(e);
        }
        step("execute(query, callback) hands the ResponseError over", null);
        const queries = [{ query: "UPDATE users SET age = ? WHERE id = ?", params: [7, id] }];
        client.batch(queries, { prepare: true }, (err) => {
          step("batch(queries, options, callback)", err);
          let rows = 0;
          client.eachRow("SELECT key FROM system.local", [], {}, () => rows++, (err) => {
            step("eachRow(query, params, options, rowCallback, callback)", err);
            assert.equal(rows, 1);
            client.metadata.getTable(keyspace, "users", (err, table) => {
              step("metadata.getTable(ks, table, callback)", err);
              try {
                assert.deepEqual(table.partitionKeys.map((c) => c.name), ["id"]);
              } catch (e) {
                fail(e);
              }
              client.shutdown((err) => {
                step("shutdown(callback)", err);
                clearTimeout(watchdog);
                console.log("node cjs: all callback steps passed");
              });
            });
          });
        });
      });
    });
  });
});
