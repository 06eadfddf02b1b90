// Opening a driver Client from the resolved settings: password lookup, TLS files, and a
// bounded connect so that scripts probing for a live node get an answer quickly.

import { Client } from "../driver/deno.ts";
import { CliFailure, describeError, UsageError } from "./errors.ts";
import type { ConnectionSettings } from "./settings.ts";

export const PASSWORD_ENV = "CQLWIRE_PASSWORD";

const encoder = new TextEncoder();

/** Reads one line from the terminal without echoing it. */
async function promptSecret(prompt: string): Promise<string> {
  if (!Deno.stdin.isTerminal()) {
    throw new UsageError(`--password-prompt needs a terminal on stdin; set ${PASSWORD_ENV} instead`);
  }
  await Deno.stderr.write(encoder.encode(prompt));
  Deno.stdin.setRaw(true);
  const bytes: number[] = [];
  const chunk = new Uint8Array(64);
  try {
    reading: for (;;) {
      const count = await Deno.stdin.read(chunk);
      if (count === null) break;
      for (const byte of chunk.subarray(0, count)) {
        if (byte === 0x0d || byte === 0x0a) break reading;
        if (byte === 0x03) throw new CliFailure("password prompt interrupted", 130);
        if (byte === 0x7f || byte === 0x08) {
          // Backspace: drop the last UTF-8 character, continuation bytes included.
          while (bytes.length > 0 && (bytes.pop()! & 0xc0) === 0x80) { /* keep popping */ }
          continue;
        }
        bytes.push(byte);
      }
    }
  } finally {
    Deno.stdin.setRaw(false);
    await Deno.stderr.write(encoder.encode("\n"));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** The password comes only from the environment or a no-echo prompt, never from a flag. */
export async function obtainPassword(username: string | undefined, prompt: boolean): Promise<string | undefined> {
  if (username === undefined) {
    if (prompt) throw new UsageError("--password-prompt needs --username");
    return undefined;
  }
  if (prompt) return await promptSecret(`Password for ${username}: `);
  const fromEnv = Deno.env.get(PASSWORD_ENV);
  if (fromEnv !== undefined) return fromEnv;
  throw new UsageError(`--username ${username} given without a password: set ${PASSWORD_ENV} or use --password-prompt`);
}

export interface OpenedClient {
  client: Client;
  /** Strings that must never appear in output, masked by describeError. */
  secrets: string[];
}

export async function openClient(settings: ConnectionSettings, password: string | undefined): Promise<OpenedClient> {
  const secrets = password ? [password] : [];
  const options: ConstructorParameters<typeof Client>[0] = {
    contactPoints: settings.contactPoints,
    socketOptions: { connectTimeout: settings.connectTimeoutMs },
  };
  if (settings.localDataCenter !== undefined) options.localDataCenter = settings.localDataCenter;
  if (settings.keyspace !== undefined) options.keyspace = settings.keyspace;
  if (settings.protocolVersion !== undefined) options.protocolVersion = settings.protocolVersion;
  if (settings.compression !== undefined) options.compression = settings.compression;
  if (settings.requestTimeoutMs !== undefined) options.requestTimeout = settings.requestTimeoutMs;
  if (settings.username !== undefined && password !== undefined) {
    options.credentials = { username: settings.username, password };
  }
  if (settings.tls) {
    const tls: NonNullable<typeof options.tls> = { rejectUnauthorized: settings.tls.rejectUnauthorized };
    if (settings.tls.caFile !== undefined) {
      try {
        tls.ca = await Deno.readTextFile(settings.tls.caFile);
      } catch (error) {
        throw new UsageError(`cannot read --tls-ca file ${settings.tls.caFile}: ${(error as Error).message}`);
      }
    }
    if (settings.tls.serverName !== undefined) tls.serverName = settings.tls.serverName;
    options.tls = tls;
  }

  let client: Client;
  try {
    client = new Client(options);
  } catch (error) {
    throw new UsageError(describeError(error, secrets));
  }
  // The driver's warnings (e.g. credentials in clear text to a remote host) reach the user.
  client.on("log", (level, message) => {
    if (level === "warning") console.error(`warning: ${describeError(new Error(String(message)), secrets)}`);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new CliFailure(
          `could not connect to ${settings.contactPoints.join(", ")} within ${settings.connectTimeoutMs} ms`,
        ),
      );
    }, settings.connectTimeoutMs);
  });
  try {
    await Promise.race([client.connect(), deadline]);
  } catch (error) {
    // The process exits right after a failed connect, so a slow shutdown is not awaited.
    client.shutdown().catch(() => {});
    if (error instanceof CliFailure) throw error;
    throw new CliFailure(`cannot connect: ${describeError(error, secrets)}`);
  } finally {
    clearTimeout(timer);
  }
  return { client, secrets };
}
