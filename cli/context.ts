// What every command shares: the merged flags and job config, the connected client, and
// the mapping of names (consistency levels) to the driver's codes.

import type { Command } from "commander";
import type { JobConfig } from "../schemas/job.ts";
import { CliFailure, describeError, UsageError } from "./errors.ts";
import { type GlobalFlags, loadJobConfig, resolveConnection } from "./settings.ts";

const SHUTDOWN_GRACE_MS = 2000;

export interface Context {
  flags: GlobalFlags;
  config: JobConfig;
}

export async function contextOf(command: Command): Promise<Context> {
  const flags = command.optsWithGlobals() as GlobalFlags;
  const config = flags.config !== undefined ? await loadJobConfig(flags.config) : {};
  return { flags, config };
}

/** local_quorum → the driver's types.consistencies.localQuorum. */
export async function consistencyCode(name: string | undefined): Promise<number | undefined> {
  if (name === undefined) return undefined;
  const { types } = await import("../driver/deno.ts");
  const key = name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  const code = (types.consistencies as Record<string, number>)[key];
  if (code === undefined) throw new UsageError(`unknown consistency level '${name}'`);
  return code;
}

export type DriverClient = import("../driver/deno.ts").Client;

/** Connects, runs `work`, and shuts the client down (without waiting long for it). */
export async function withClient<T>(
  context: Context,
  work: (client: DriverClient, secrets: string[]) => Promise<T>,
): Promise<T> {
  const settings = resolveConnection(context.flags, context.config.connection);
  const { obtainPassword, openClient } = await import("./connect.ts");
  const password = await obtainPassword(settings.username, context.flags.passwordPrompt ?? false);
  const { client, secrets } = await openClient(settings, password);
  try {
    return await work(client, secrets);
  } catch (error) {
    if (error instanceof UsageError || error instanceof CliFailure) {
      for (const secret of secrets) {
        if (secret && error.message.includes(secret)) {
          const masked = error.message.replaceAll(secret, "***");
          throw error instanceof UsageError ? new UsageError(masked) : new CliFailure(masked, error.exitCode);
        }
      }
      throw error;
    }
    throw new CliFailure(describeError(error, secrets));
  } finally {
    await Promise.race([
      client.shutdown().catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS)),
    ]);
  }
}

/** Calls `handler` on SIGINT or SIGTERM (instead of exiting); `dispose` removes the listeners. */
export function onInterrupt(handler: (signal: string) => void): { dispose: () => void } {
  const listeners: Array<[Deno.Signal, () => void]> = [];
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const listener = () => handler(signal);
    try {
      Deno.addSignalListener(signal, listener);
      listeners.push([signal, listener]);
    } catch {
      // Signals are not available on every platform.
    }
  }
  return {
    dispose: () => {
      for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    },
  };
}
