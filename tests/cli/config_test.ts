import { JobConfigError, parseJobConfig, PASSWORD_REFUSAL } from "../../schemas/job.ts";
import { generateJobJsonSchema, JOB_SCHEMA_PATH } from "../../schemas/generate.ts";
import { UsageError } from "../../cli/errors.ts";
import { loadJobConfig, parseHostList, resolveConnection } from "../../cli/settings.ts";
import { assertEquals, assertRejects, assertStringIncludes, assertThrows } from "./assert.ts";

function problemsOf(value: unknown): string[] {
  return assertThrows(() => parseJobConfig(value, "job.json"), JobConfigError).problems;
}

Deno.test("a full valid config parses", () => {
  const config = parseJobConfig({
    connection: {
      hosts: ["10.0.0.1", "10.0.0.2:9043", "[::1]:9042"],
      dc: "dc1",
      protocol: 5,
      compression: "lz4",
      tls: { ca: "ca.pem" },
      username: "loader",
    },
    load: { files: ["a.csv"], table: "ks.t", map: { id: "user_id" }, nullValues: ["", "NULL"], maxConcurrency: 16 },
    query: { format: "json", pageSize: 100 },
  }, "job.json");
  assertEquals(config.connection?.protocol, 5);
  assertEquals(config.load?.map, { id: "user_id" });
});

Deno.test("a password anywhere is refused with the environment-variable advice", () => {
  assertEquals(problemsOf({ connection: { username: "u", password: "secret" } }), [
    `connection.password: ${PASSWORD_REFUSAL}`,
  ]);
  assertEquals(problemsOf({ password: "secret" }), [`password: ${PASSWORD_REFUSAL}`]);
  const nested = problemsOf({ connection: { tls: { passphrase: "x" } } });
  assertEquals(nested, [`connection.tls.passphrase: ${PASSWORD_REFUSAL}`]);
  // The secret itself never appears in the message.
  for (const problem of problemsOf({ connection: { password: "hunter2" } })) {
    assertEquals(problem.includes("hunter2"), false);
  }
});

Deno.test("validation errors name the offending field path", () => {
  assertEquals(problemsOf({ connection: { port: 70000 } })[0].startsWith("connection.port: "), true);
  assertEquals(problemsOf({ connection: { protocol: 3 } })[0].startsWith("connection.protocol: "), true);
  assertEquals(problemsOf({ load: { delimiter: ";;" } }), ["load.delimiter: expected exactly one character"]);
  assertEquals(problemsOf({ load: { files: ["ok.csv", 3] } })[0].startsWith("load.files[1]: "), true);
  assertEquals(problemsOf({ connection: { hosts: ["bad host"] } })[0].startsWith("connection.hosts[0]: "), true);
  assertEquals(problemsOf({ query: { format: "xml" } })[0].startsWith("query.format: "), true);
  assertEquals(problemsOf({ lod: {} }), ["lod: unknown setting"]);
  assertEquals(problemsOf({ load: { maxConcurrency: 0 } })[0].startsWith("load.maxConcurrency: "), true);
  assertEquals(problemsOf([])[0].startsWith("(top level): "), true);
});

Deno.test("the checked-in job.schema.json matches a fresh generation", async () => {
  const checkedIn = await Deno.readTextFile(JOB_SCHEMA_PATH);
  assertEquals(
    checkedIn === generateJobJsonSchema(),
    true,
    "schemas/job.schema.json is stale: run `deno run -A schemas/generate.ts`",
  );
  const schema = JSON.parse(checkedIn);
  assertEquals(schema.additionalProperties, false);
  assertEquals(schema.properties.connection.properties.password.not, {});
});

Deno.test("config file loading: JSON errors and relative paths", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-config-" });
  try {
    await Deno.writeTextFile(`${dir}/broken.json`, "{ not json");
    await assertRejects(() => loadJobConfig(`${dir}/broken.json`), UsageError, /not valid JSON/);
    await assertRejects(() => loadJobConfig(`${dir}/missing.json`), UsageError, /cannot read config file/);
    await Deno.writeTextFile(`${dir}/bad.json`, JSON.stringify({ connection: { password: "pw" } }));
    const error = await assertRejects(() => loadJobConfig(`${dir}/bad.json`), UsageError);
    assertStringIncludes(error.message, "CQLWIRE_PASSWORD");
    await Deno.writeTextFile(
      `${dir}/job.json`,
      JSON.stringify({
        connection: { tls: { ca: "certs/ca.pem" } },
        load: { files: ["data/$HOME.csv", "/abs/x.csv", "~/y.csv"] },
      }),
    );
    const config = await loadJobConfig(`${dir}/job.json`);
    assertEquals(config.connection?.tls?.ca, `${dir}/certs/ca.pem`);
    // Plain paths only: no variable or ~ expansion.
    assertEquals(config.load?.files, [`${dir}/data/$HOME.csv`, "/abs/x.csv", `${dir}/~/y.csv`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("flags override the config, which overrides defaults", () => {
  const config = {
    hosts: ["db1", "db2:9100"],
    port: 9200,
    dc: "dc-config",
    keyspace: "ks_config",
    tls: { insecure: true },
  };
  const fromConfig = resolveConnection({}, config);
  assertEquals(fromConfig.contactPoints, ["db1:9200", "db2:9100"]);
  assertEquals(fromConfig.localDataCenter, "dc-config");
  assertEquals(fromConfig.tls, { rejectUnauthorized: false });
  assertEquals(fromConfig.connectTimeoutMs, 5000);
  const overridden = resolveConnection(
    { hosts: "flaghost", dc: "dc-flag", tlsInsecure: false, connectTimeout: 250 },
    config,
  );
  assertEquals(overridden.contactPoints, ["flaghost:9200"]);
  assertEquals(overridden.localDataCenter, "dc-flag");
  assertEquals(overridden.keyspace, "ks_config");
  assertEquals(overridden.tls, { rejectUnauthorized: true });
  assertEquals(overridden.connectTimeoutMs, 250);
  const defaults = resolveConnection({}, undefined);
  assertEquals(defaults.contactPoints, ["127.0.0.1:9042"]);
  assertEquals(defaults.tls, undefined);
  assertEquals(resolveConnection({ tlsCa: "ca.pem" }, undefined).tls, { rejectUnauthorized: true, caFile: "ca.pem" });
});

Deno.test("host lists", () => {
  assertEquals(parseHostList(["a, b:1 ,[::1]:9043,[fe80::1]"], 9042), [
    "a:9042",
    "b:1",
    "[::1]:9043",
    "[fe80::1]:9042",
  ]);
  assertThrows(() => parseHostList(["a:99999"], 9042), UsageError, /invalid port/);
  assertThrows(() => parseHostList(["::1"], 9042), UsageError, /invalid host/);
  assertThrows(() => parseHostList([" , "], 9042), UsageError, /no hosts/);
});

Deno.test("the load, unload, count and bench sections take every option, and check them", async () => {
  const config = parseJobConfig({
    load: {
      files: ["data/*.csv.gz", "-"],
      query: "UPDATE ks.t SET v = :v WHERE k = :k",
      format: "jsonl",
      skip: ["junk", "1"],
      set: { source: "import", year: "2024", active: "true" },
      ttl: 0,
      timestamp: "2024-01-01T00:00:00Z",
      maxConcurrency: 128,
      maxRetries: 0,
      rate: 5000,
      batchSize: 50,
      batchBy: "replica",
      checkpointDir: "ckpt",
      checkpointInterval: 2,
      resume: true,
      split: "2/8",
      dryRun: false,
      quiet: true,
      progressInterval: 10,
    },
    unload: {
      table: "ks.t",
      columns: ["a", "b"],
      format: "jsonl",
      out: "out/",
      overwrite: true,
      maxConcurrency: 8,
      header: false,
    },
    count: { table: "ks.t", by: "node", maxConcurrency: 16, json: true },
    bench: { count: 1000, concurrency: [1, 8], keyspace: "b2", out: "bench-out", json: true },
  }, "job.json");
  assertEquals(config.load?.batchBy, "replica");
  assertEquals(config.bench?.concurrency, [1, 8]);
  assertEquals(problemsOf({ load: { split: "2-8" } })[0], "load.split: expected i/n, e.g. 1/4, or auto");
  assertEquals(problemsOf({ load: { batchBy: "row" } })[0].startsWith("load.batchBy: "), true);
  assertEquals(problemsOf({ load: { ttl: -1 } })[0].startsWith("load.ttl: "), true);
  assertEquals(problemsOf({ unload: { format: "xml" } })[0].startsWith("unload.format: "), true);
  assertEquals(problemsOf({ count: { by: "rack" } })[0].startsWith("count.by: "), true);
  assertEquals(problemsOf({ bench: { concurrency: [0] } })[0].startsWith("bench.concurrency[0]: "), true);
  assertEquals(problemsOf({ unload: { password: "x" } }), [`unload.password: ${PASSWORD_REFUSAL}`]);

  const dir = await Deno.makeTempDir({ prefix: "cqlwire-config-" });
  try {
    await Deno.writeTextFile(
      `${dir}/job.json`,
      JSON.stringify({ load: { checkpointDir: "ck" }, unload: { out: "dump/" }, bench: { out: "/abs/bench" } }),
    );
    const loaded = await loadJobConfig(`${dir}/job.json`);
    assertEquals([loaded.load?.checkpointDir, loaded.unload?.out, loaded.bench?.out], [
      `${dir}/ck`,
      `${dir}/dump/`,
      "/abs/bench",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// load.set took JSON numbers through String(value): 9007199254740993 parses as 9007199254740992
// before String() ever sees it, so a number (or boolean) is refused and the value must be text.
Deno.test("load.set values must be strings: a JSON number is refused with the reason", () => {
  const config = JSON.parse('{"load": {"set": {"id": 9007199254740993, "flag": true}}}');
  const problems = problemsOf(config);
  assertEquals(problems.length, 2);
  assertEquals(problems[0].startsWith("load.set.id: expected a string"), true, problems[0]);
  assertStringIncludes(problems[0], "9007199254740993 reads as 9007199254740992");
  assertEquals(problems[1].startsWith("load.set.flag: expected a string"), true, problems[1]);
  assertEquals(parseJobConfig({ load: { set: { id: "9007199254740993" } } }, "job.json").load?.set, {
    id: "9007199254740993",
  });
});
