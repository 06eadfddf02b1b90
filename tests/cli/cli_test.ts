// The command line as a subprocess, without a server: help, usage errors and their exit
// codes, secrets handling, and bounded connect failures.

import { assert, assertEquals, assertMatch, assertStringIncludes } from "./assert.ts";
import { closedPort, runCli, silentListener } from "./run.ts";

Deno.test("--help at every level exits 0", async () => {
  const top = await runCli(["--help"]);
  assertEquals(top.code, 0);
  assertStringIncludes(top.stdout, "query [options] [cql]");
  assertStringIncludes(top.stdout, "load [options] [inputs...]");
  for (const command of ["unload [options]", "count [options]", "bench [options]"]) {
    assertStringIncludes(top.stdout, command);
  }
  for (const command of ["query", "load"]) {
    const help = await runCli([command, "--help"]);
    assertEquals(help.code, 0, help.stderr);
    assertStringIncludes(help.stdout, "Global Options:");
    assertStringIncludes(help.stdout, "--hosts");
  }
  const load = await runCli(["help", "load"]);
  assertStringIncludes(load.stdout, "--max-concurrency");
});

Deno.test("--help of every command lists every one of its options and the global ones", async () => {
  const { buildProgram } = await import("../../cli/main.ts");
  const program = buildProgram(() => {});
  const globals = program.options.map((option) => option.long!);
  const commands = program.commands.map((command) => command.name());
  assertEquals(commands, ["query", "load", "unload", "count", "bench"]);
  for (const command of program.commands) {
    const help = await runCli([command.name(), "--help"]);
    assertEquals(help.code, 0, help.stderr);
    for (const option of [...command.options.map((o) => o.long!), ...globals]) {
      assertStringIncludes(help.stdout, option, `${command.name()} --help`);
    }
    assert(command.options.length >= 4, `${command.name()} has its options`);
  }
});

Deno.test("usage errors exit 2 with one line on stderr", async () => {
  const cases: Array<[string[], RegExp]> = [
    [["query", "--format", "xml", "SELECT 1"], /argument 'xml' is invalid/],
    [["query"], /no statement given/],
    [["query", "  ;  -- nothing\n"], /no CQL statement found/],
    [["query", "--page-size", "0", "SELECT 1"], /--page-size must be a positive integer/],
    [["--protocol", "3", "query", "SELECT 1"], /protocol version must be 4 or 5/],
    [["load", "--table", "ks.t"], /no input file given/],
    [["load", "/nonexistent/input.csv", "--table", "ks.t"], /cannot read \/nonexistent\/input.csv/],
    [["load", "x.csv"], /--table keyspace.table is required/],
    [["load", "/nonexistent/*.csv", "--table", "ks.t"], /no file matches/],
    [["load", "-", "--table", "ks.t", "--split", "3/2"], /i must be between 1 and n/],
    [["load", "-", "--table", "ks.t", "--batch-by", "row"], /argument 'row' is invalid/],
    [["load", "-", "--table", "ks.t", "--delimiter", "§"], /single ASCII character/],
    [["load", "-", "--table", "ks.t", "--timestamp", "soon"], /--timestamp soon/],
    [["unload"], /either --table keyspace.table or --query/],
    [["unload", "--table", "ks.t", "--query", "SELECT 1"], /either --table/],
    [["count"], /^error: give either --table keyspace.table or --query "SELECT \.\.\."\n$/],
    [["bench", "--concurrency", "1,x"], /comma-separated list of positive integers/],
    [["--hosts", "a:b:c", "query", "SELECT 1"], /invalid host 'a:b:c'/],
    [["frobnicate"], /unknown command 'frobnicate'/],
    [["--username", "someone", "query", "SELECT 1"], /set CQLWIRE_PASSWORD or use --password-prompt/],
    [["--password-prompt", "--username", "u", "query", "SELECT 1"], /needs a terminal/],
  ];
  for (const [args, pattern] of cases) {
    const result = await runCli(args);
    assertEquals(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assertMatch(result.stderr, pattern, args.join(" "));
  }
});

Deno.test("a password on the command line is refused without being echoed", async () => {
  for (
    const args of [["--password=Hunter2Secret", "query", "SELECT 1"], [
      "query",
      "--password",
      "Hunter2Secret",
      "SELECT 1",
    ]]
  ) {
    const result = await runCli(args);
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, "CQLWIRE_PASSWORD");
    assertEquals(result.stderr.includes("Hunter2Secret") || result.stdout.includes("Hunter2Secret"), false);
  }
});

Deno.test("a config file holding a password is refused, naming the field", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-cli-" });
  try {
    await Deno.writeTextFile(
      `${dir}/job.json`,
      JSON.stringify({ connection: { username: "u", password: "Hunter2Secret" } }),
    );
    const result = await runCli(["--config", `${dir}/job.json`, "query", "SELECT 1"]);
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, "connection.password");
    assertStringIncludes(result.stderr, "CQLWIRE_PASSWORD");
    assertEquals(result.stderr.includes("Hunter2Secret"), false);
    await Deno.writeTextFile(`${dir}/typo.json`, JSON.stringify({ query: { pagesize: 10 } }));
    const typo = await runCli(["--config", `${dir}/typo.json`, "query", "SELECT 1"]);
    assertEquals(typo.code, 2);
    assertStringIncludes(typo.stderr, "query.pagesize: unknown setting");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("nothing listening: exit 1 at once, and the password never shows", async () => {
  const port = closedPort();
  const result = await runCli(["--hosts", `127.0.0.1:${port}`, "--username", "u", "query", "SELECT 1"], {
    env: { CQLWIRE_PASSWORD: "Hunter2Secret" },
  });
  assertEquals(result.code, 1, result.stderr);
  // Refused, not timed out: a timeout would name its deadline ("within N ms").
  assertMatch(result.stderr, /^error: cannot connect: .*\n$/);
  assertEquals(/within \d+ ms/.test(result.stderr), false, result.stderr);
  assertEquals(result.stderr.includes("Hunter2Secret"), false);
});

Deno.test("a server that never answers: the connect timeout bounds the wait", async () => {
  const server = silentListener();
  try {
    const quick = await runCli([
      "--hosts",
      `127.0.0.1:${server.port}`,
      "--connect-timeout",
      "500",
      "query",
      "SELECT 1",
    ]);
    assertEquals(quick.code, 1);
    // The deadline the option set is the one the core gave up at (that it gives up at that
    // deadline and not before is checked on a simulated clock: core/tests/connection.rs,
    // a_silent_server_fails_the_handshake_at_its_deadline).
    assertStringIncludes(quick.stderr, "within 500 ms");
    const byDefault = await runCli(["--hosts", `127.0.0.1:${server.port}`, "query", "SELECT 1"]);
    assertEquals(byDefault.code, 1);
    assertStringIncludes(byDefault.stderr, "within 5000 ms");
    // What the CLI waited on: every connection sent OPTIONS (stream 0, empty body) and nothing
    // after it, the handshake's first step, never answered.
    const sent = server.received();
    assert(sent.length >= 2, `${sent.length} connections`);
    for (const bytes of sent) assertEquals([...bytes].slice(1), [0, 0, 0, 0x05, 0, 0, 0, 0]);
  } finally {
    server.close();
  }
});

Deno.test("the launcher works through a symlink and explains a missing Deno", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cqlwire-launcher-" });
  try {
    const { CQLWIRE } = await import("./run.ts");
    await Deno.symlink(CQLWIRE, `${dir}/cqlwire`);
    const linked = await new Deno.Command(`${dir}/cqlwire`, { args: ["--version"], stdout: "piped" }).output();
    assertEquals(linked.code, 0);
    assertEquals(new TextDecoder().decode(linked.stdout).trim(), "0.1.0");
    // A copy of the launcher outside a checkout has no node_modules/.bin/deno beside it.
    await Deno.mkdir(`${dir}/fake/bin`, { recursive: true });
    await Deno.copyFile(CQLWIRE, `${dir}/fake/bin/cqlwire`);
    await Deno.chmod(`${dir}/fake/bin/cqlwire`, 0o755);
    const missing = await new Deno.Command(`${dir}/fake/bin/cqlwire`, { args: ["--help"], stderr: "piped" }).output();
    assertEquals(missing.code, 1);
    assertStringIncludes(new TextDecoder().decode(missing.stderr), "run make demo / scripts/bootstrap first");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a --username without TLS to a remote host warns once that the password goes in clear text", async () => {
  // 0.0.0.0 is not a loopback name, so the warning is due, yet on Linux a connect to it stays on
  // this machine (tests send nothing off it); the port is closed, and the warning comes as the
  // socket opens, before any byte.
  const remote = `0.0.0.0:${closedPort()}`;
  const result = await runCli(
    ["--hosts", remote, "--connect-timeout", "300", "--username", "loader", "query", "SELECT 1"],
    { env: { CQLWIRE_PASSWORD: "Hunter2Secret" } },
  );
  assertEquals(result.code, 1, result.stderr);
  const warnings = result.stderr.split("\n").filter((line) => line.startsWith("warning: "));
  assertEquals(warnings, [
    `warning: credentials of user 'loader' go to ${remote} in clear text (no TLS) when it asks for ` +
    "authentication: enable TLS, or connect over loopback",
  ]);
  assertEquals(result.stderr.includes("Hunter2Secret"), false);
  const local = await runCli(["--hosts", `127.0.0.1:${closedPort()}`, "--username", "loader", "query", "SELECT 1"], {
    env: { CQLWIRE_PASSWORD: "Hunter2Secret" },
  });
  assertEquals(local.stderr.includes("warning:"), false, local.stderr);
});
