/**
 * Security: a password never shows in logs, errors, progress output or --json summaries,
 * and file paths from job configs are only ever read (or created), never interpreted.
 *
 * The shared test node has no authentication, so the proxy poses as a PasswordAuthenticator
 * (`fakeAuth`, protocol v4): the client really sends its password, and a wrong one really
 * gets "bad credentials".
 */
import { AuthenticationError } from "../../../driver/deno.ts";
import {
  assert,
  assertEquals,
  clientVia,
  cliHosts,
  CQLWIRE,
  describeRun,
  directClient,
  freshTable,
  type Measured,
  runCli,
  scenario,
  sleep,
  startProxy,
  TARGET,
  tempDir,
  writeRowsCsv,
} from "../helpers.ts";

function randomSecret(label: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return `${label}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The ways a password could be spelt in output: as is, hex, base64 (alone and in the auth token). */
function spellings(secret: string, username: string): string[] {
  const enc = new TextEncoder();
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  const token = enc.encode(`\0${username}\0${secret}`);
  return [secret, hex(enc.encode(secret)), btoa(secret), btoa(String.fromCharCode(...token)), hex(token)];
}

async function allFilesUnder(dir: string): Promise<Array<{ path: string; text: string }>> {
  const out: Array<{ path: string; text: string }> = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.isFile) out.push({ path: p, text: new TextDecoder().decode(await Deno.readFile(p)) });
    }
  };
  await walk(dir);
  return out;
}

/** Where any spelling of a secret appears among `outputs`. */
function leaks(outputs: Array<{ where: string; text: string }>, secrets: string[]): string[] {
  const found: string[] = [];
  for (const { where, text } of outputs) {
    for (const s of secrets) {
      if (text.includes(s)) {
        found.push(`${where} contains ${s === secrets[0] ? "the password" : `an encoding of it (${s.slice(0, 12)}…)`}`);
      }
    }
  }
  return found;
}

/** Runs `command` under a pseudo-terminal (util-linux `script`), so the CLI draws its progress line. */
async function runWithTty(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number; output: string } | null> {
  try {
    const quoted = [CQLWIRE, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
    const out = await new Deno.Command("script", {
      args: ["-qefc", quoted, "/dev/null"],
      env: { ...env, NO_COLOR: "1" },
      cwd,
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    return { code: out.code, output: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
  } catch {
    return null;
  }
}

scenario(
  "single",
  "security: passwords never in logs, errors, progress or --json",
  "the CLI (v4, through a proxy posing as PasswordAuthenticator) runs a query, a load with bad rows (--json and progress on a terminal), a load cut by connection resets, and a wrong password; the driver fails to authenticate: no output, file, error message, stack or inspection contains the password (plain, hex or base64)",
  async (m: Measured) => {
    const setup = directClient();
    const table = await freshTable(setup, "security_load");
    await setup.shutdown();
    const dir = await tempDir("security");
    const csv = `${dir}/rows.csv`;
    await writeRowsCsv(csv, 3_000);
    await Deno.writeTextFile(csv, "oops,not a number\n", { append: true });
    const username = "alice";
    const password = randomSecret("pw");
    const wrong = randomSecret("wrong");
    const proxy = await startProxy();
    proxy.setRules({ fakeAuth: { username, password } });
    const outputs: Array<{ where: string; text: string }> = [];
    const auth = ["--protocol", "4", "--username", username];
    const env = { CQLWIRE_PASSWORD: password };
    try {
      const record = (name: string, run: { stdout: string; stderr: string }) => {
        outputs.push({ where: `${name} stdout`, text: run.stdout }, { where: `${name} stderr`, text: run.stderr });
      };
      const query = await runCli([
        "query",
        "SELECT release_version FROM system.local",
        "--format",
        "json",
        ...cliHosts(proxy.address),
        ...auth,
      ], { env, cwd: dir });
      record("query", query);
      assertEquals(query.code, 0, `query with the right password: ${describeRun(query)}`);

      const load = await runCli(
        [
          "load",
          csv,
          "--table",
          table,
          ...cliHosts(proxy.address),
          ...auth,
          "--bad-dir",
          `${dir}/bad`,
          "--json",
          "--progress-interval",
          "1",
        ],
        { env, cwd: dir },
      );
      record("load --json", load);
      assertEquals(load.code, 3, `load with one bad row: ${describeRun(load)}`);

      const tty = await runWithTty(
        ["load", csv, "--table", table, ...cliHosts(proxy.address), ...auth, "--bad-dir", `${dir}/bad-tty`],
        env,
        dir,
      );
      if (tty) outputs.push({ where: "load on a terminal (progress line)", text: tty.output });
      else m.notes.push("no `script` command: the terminal progress line was not checked");

      // Connection resets during the load: errors and retries get reported.
      proxy.setRules({ fakeAuth: { username, password }, cut: { direction: "toClient", afterBytes: 40_000, how: "reset" } });
      const cut = await runCli(
        ["load", csv, "--table", table, ...cliHosts(proxy.address), ...auth, "--bad-dir", `${dir}/bad-cut`, "--json", "--max-retries", "1"],
        { env, cwd: dir, timeoutMs: 120_000 },
      );
      record("load with resets", cut);
      proxy.setRules({ fakeAuth: { username, password } });

      const refused = await runCli(["query", "SELECT release_version FROM system.local", ...cliHosts(proxy.address), ...auth], {
        env: { CQLWIRE_PASSWORD: wrong },
        cwd: dir,
      });
      record("query with a wrong password", refused);
      assert(refused.code !== 0, "a wrong password was accepted");
      const refusedJson = await runCli([
        "load",
        csv,
        "--table",
        table,
        ...cliHosts(proxy.address),
        ...auth,
        "--json",
        "--bad-dir",
        `${dir}/bad-refused`,
      ], {
        env: { CQLWIRE_PASSWORD: wrong },
        cwd: dir,
      });
      record("load --json with a wrong password", refusedJson);

      // The driver: a refused password, and a connection reset, seen through errors and events.
      const driverText: string[] = [];
      const c = clientVia(proxy, { protocolVersion: 4, credentials: { username, password: wrong } });
      c.on("log", (...a) => driverText.push(a.map(String).join(" ")));
      try {
        await c.connect();
        driverText.push("connected with a wrong password");
      } catch (e) {
        assert(e instanceof AuthenticationError, `expected AuthenticationError, got ${(e as Error).name}: ${(e as Error).message}`);
        assertEquals([e.code, e.host], ["ERR_AUTH", proxy.address], "the refusal's code and host");
        assertEquals(
          e.message,
          `authentication failed: Provided username and/or password are incorrect (host ${proxy.address})`,
          "the refusal's message",
        );
        driverText.push(String(e), (e as Error).stack ?? "", Deno.inspect(e, { depth: 10 }), JSON.stringify(e));
      } finally {
        await c.shutdown();
      }
      const ok = clientVia(proxy, { protocolVersion: 4, credentials: { username, password } });
      ok.on("log", (...a) => driverText.push(a.map(String).join(" ")));
      ok.on("hostDown", (...a) => driverText.push(a.map(String).join(" ")));
      try {
        await ok.connect();
        for (const conn of proxy.openConnections()) proxy.closeConnection(conn.id, "reset");
        try {
          await ok.execute("SELECT release_version FROM system.local");
        } catch (e) {
          driverText.push(String(e), (e as Error).stack ?? "", Deno.inspect(e, { depth: 10 }));
        }
        await sleep(300);
      } finally {
        await ok.shutdown();
      }
      outputs.push({ where: "driver errors and events", text: driverText.join("\n") });

      for (const f of await allFilesUnder(dir)) {
        if (f.path !== csv) outputs.push({ where: f.path.slice(dir.length + 1), text: f.text });
      }
      const found = [...leaks(outputs, spellings(password, username)), ...leaks(outputs, spellings(wrong, username))];
      m.notes.push(
        `${outputs.length} outputs checked; fake auth accepted ${proxy.stats().fakeAuth.accepted}, refused ${proxy.stats().fakeAuth.refused}`,
      );
      if (found.length) m.notes.push(...found);
      assert(proxy.stats().fakeAuth.accepted > 0 && proxy.stats().fakeAuth.refused > 0, "both passwords were really sent");
      assertEquals(found, [], "password leaks");
    } finally {
      await proxy.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);

scenario(
  "single",
  "security: job config paths are only read, never interpreted",
  "job configs whose file paths hold command substitutions, backquotes, ~, $VAR and ';': the CLI reads (or creates) exactly those literal paths: nothing is executed, nothing expanded",
  async (m: Measured) => {
    const setup = directClient();
    await freshTable(setup, "security_paths");
    await setup.shutdown();
    const dir = await tempDir("paths");
    try {
      const home = Deno.env.get("HOME") ?? "/root";
      const hostile = [
        "$(touch PWNED1)",
        "`touch PWNED2`",
        "a.csv; touch PWNED3",
        "~/cqlwire-no-such.csv",
        "$HOME/cqlwire-no-such.csv",
        "${IFS}PWNED4",
      ];
      const failures: string[] = [];
      for (const path of hostile) {
        const job = {
          connection: { hosts: [TARGET], dc: "datacenter1" },
          load: { files: [path], table: "cqlwire_faults.security_paths", badDir: "$(touch PWNED5)" },
        };
        await Deno.writeTextFile(`${dir}/job.json`, JSON.stringify(job));
        const run = await runCli(["--config", `${dir}/job.json`, "load"], { cwd: dir, env: { IFS: " " } });
        const text = run.stdout + run.stderr;
        if (run.code === 0) failures.push(`${path}: the load succeeded`);
        if (!text.includes(path)) failures.push(`${path}: the error does not name the literal path: ${text.trim().slice(0, 160)}`);
        if (path.startsWith("~") && text.includes(home)) failures.push(`${path}: '~' was expanded to ${home}`);
        if (path.startsWith("$HOME") && text.includes(home)) failures.push(`${path}: $HOME was expanded`);
      }
      const created = [];
      for await (const e of Deno.readDir(dir)) created.push(e.name);
      const pwned = created.filter((n) => n.startsWith("PWNED"));
      m.notes.push(`files in the working directory afterwards: ${created.join(", ")}`);
      if (pwned.length) failures.push(`commands ran: ${pwned.join(", ")}`);
      assertEquals(failures, [], "paths interpreted");
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);
