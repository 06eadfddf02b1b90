// Runs bin/cqlwire as a subprocess, the way scripts and users do.

export const REPO_ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
export const CQLWIRE = `${REPO_ROOT}/bin/cqlwire`;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  elapsedMs: number;
}

/** How long a CLI run may take before it is killed and its test fails: a hang must not stall CI. */
export const CLI_RUN_DEADLINE_MS = 600_000;

export async function runCli(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string | Uint8Array; cwd?: string; clearPassword?: boolean; deadlineMs?: number } = {},
): Promise<CliResult> {
  const env = { ...Deno.env.toObject(), ...(options.env ?? {}) };
  if (options.clearPassword !== false && !(options.env && "CQLWIRE_PASSWORD" in options.env)) {
    delete env.CQLWIRE_PASSWORD;
  }
  const started = performance.now();
  const child = new Deno.Command(CQLWIRE, {
    args,
    env,
    clearEnv: true,
    cwd: options.cwd,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const deadlineMs = options.deadlineMs ?? CLI_RUN_DEADLINE_MS;
  let killed = false;
  const killer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, deadlineMs);
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(typeof options.stdin === "string" ? new TextEncoder().encode(options.stdin) : options.stdin);
    await writer.close();
  }
  const output = await child.output().finally(() => clearTimeout(killer));
  const decoder = new TextDecoder();
  if (killed) {
    throw new Error(
      `cqlwire ${args.join(" ")} did not exit within ${deadlineMs} ms and was killed\n` +
        `stdout: ${decoder.decode(output.stdout)}\nstderr: ${decoder.decode(output.stderr)}`,
    );
  }
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
    elapsedMs: performance.now() - started,
  };
}

/**
 * A TCP port that accepts connections and never answers: a hung server. `received()` is what
 * each connection sent it, so a test can see what the client was waiting on.
 */
export function silentListener(): { port: number; received: () => Uint8Array[]; close: () => void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const connections: Deno.Conn[] = [];
  const received: Uint8Array[] = [];
  const record = async (connection: Deno.Conn, index: number) => {
    const buffer = new Uint8Array(4096);
    try {
      for (let n = await connection.read(buffer); n !== null; n = await connection.read(buffer)) {
        const had = received[index];
        received[index] = new Uint8Array([...had, ...buffer.subarray(0, n)]);
      }
    } catch {
      // closed
    }
  };
  (async () => {
    try {
      for await (const connection of listener) {
        received.push(new Uint8Array(0));
        record(connection, connections.push(connection) - 1);
      }
    } catch {
      // closed
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    received: () => received.slice(),
    close: () => {
      for (const connection of connections) {
        try {
          connection.close();
        } catch {
          // already closed by the peer
        }
      }
      listener.close();
    },
  };
}

/** A port with nothing listening on it. */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** A result's exit code and output, for an assertion's message. */
export function explainResult(result: CliResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/** Runs the CLI and asserts that it exited 0. */
export async function runCliOk(args: string[], stdin?: string): Promise<CliResult> {
  const result = await runCli(args, stdin === undefined ? {} : { stdin });
  if (result.code !== 0) throw new Error(`expected exit 0 from cqlwire ${args.join(" ")}\n${explainResult(result)}`);
  return result;
}
