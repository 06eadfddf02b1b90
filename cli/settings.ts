// Merging of command-line flags over the job config over defaults. Flags that the user did
// not give are undefined (commander gets no defaults), which is what lets a config value
// show through.

import { dirname, isAbsolute, join } from "./paths.ts";
import { type ConnectionConfig, type JobConfig, JobConfigError, parseJobConfig } from "../schemas/job.ts";
import { UsageError } from "./errors.ts";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 9042;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

export interface GlobalFlags {
  hosts?: string;
  port?: number;
  dc?: string;
  keyspace?: string;
  protocol?: 4 | 5;
  compression?: "none" | "lz4" | "snappy";
  tls?: boolean;
  tlsCa?: string;
  tlsInsecure?: boolean;
  tlsServerName?: string;
  username?: string;
  passwordPrompt?: boolean;
  config?: string;
  connectTimeout?: number;
  requestTimeout?: number;
}

export interface ConnectionSettings {
  contactPoints: string[];
  localDataCenter?: string;
  keyspace?: string;
  protocolVersion?: 4 | 5;
  compression?: "none" | "lz4" | "snappy";
  tls?: { caFile?: string; rejectUnauthorized: boolean; serverName?: string };
  username?: string;
  connectTimeoutMs: number;
  requestTimeoutMs?: number;
}

/**
 * Reads and validates a job config. Relative paths inside it are taken relative to the
 * config file's folder and are otherwise used as plain paths: no ~, variables or globs.
 */
export async function loadJobConfig(path: string): Promise<JobConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new UsageError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  let config: JobConfig;
  try {
    config = parseJobConfig(json, path);
  } catch (error) {
    if (error instanceof JobConfigError) throw new UsageError(`invalid config ${error.message}`);
    throw error;
  }
  return resolveConfigPaths(config, dirname(path));
}

function relativeTo(base: string, path: string): string {
  return path === "-" || isAbsolute(path) ? path : join(base, path);
}

export function resolveConfigPaths(config: JobConfig, base: string): JobConfig {
  const resolved = structuredClone(config);
  if (resolved.connection?.tls?.ca) resolved.connection.tls.ca = relativeTo(base, resolved.connection.tls.ca);
  if (resolved.load?.files) resolved.load.files = resolved.load.files.map((file) => relativeTo(base, file));
  if (resolved.load?.badDir) resolved.load.badDir = relativeTo(base, resolved.load.badDir);
  if (resolved.load?.checkpointDir) resolved.load.checkpointDir = relativeTo(base, resolved.load.checkpointDir);
  if (resolved.unload?.out) resolved.unload.out = relativeTo(base, resolved.unload.out);
  if (resolved.bench?.out) resolved.bench.out = relativeTo(base, resolved.bench.out);
  return resolved;
}

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::([0-9]{1,5}))?$/;

/** "a,b:9043,[::1]" with a default port → ["a:9042", "b:9043", "[::1]:9042"]. */
export function parseHostList(hosts: string[], defaultPort: number): string[] {
  const contactPoints: string[] = [];
  for (const entry of hosts.flatMap((item) => item.split(","))) {
    const host = entry.trim();
    if (host === "") continue;
    const match = HOST.exec(host);
    if (!match) throw new UsageError(`invalid host '${host}': expected host or host:port ([v6addr]:port for IPv6)`);
    const port = match[2] === undefined ? defaultPort : Number(match[2]);
    if (port < 1 || port > 65535) throw new UsageError(`invalid port in host '${host}'`);
    contactPoints.push(`${match[1]}:${port}`);
  }
  if (contactPoints.length === 0) throw new UsageError("no hosts given");
  return contactPoints;
}

export function resolveConnection(flags: GlobalFlags, config: ConnectionConfig | undefined): ConnectionSettings {
  const port = flags.port ?? config?.port ?? DEFAULT_PORT;
  const hosts = flags.hosts !== undefined ? [flags.hosts] : config?.hosts ?? [DEFAULT_HOST];
  const tlsWanted = flags.tls || flags.tlsCa !== undefined || flags.tlsInsecure || flags.tlsServerName !== undefined ||
    config?.tls !== undefined;
  const settings: ConnectionSettings = {
    contactPoints: parseHostList(hosts, port),
    connectTimeoutMs: flags.connectTimeout ?? config?.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS,
  };
  const localDataCenter = flags.dc ?? config?.dc;
  if (localDataCenter !== undefined) settings.localDataCenter = localDataCenter;
  const keyspace = flags.keyspace ?? config?.keyspace;
  if (keyspace !== undefined) settings.keyspace = keyspace;
  const protocolVersion = flags.protocol ?? config?.protocol;
  if (protocolVersion !== undefined) settings.protocolVersion = protocolVersion;
  const compression = flags.compression ?? config?.compression;
  if (compression !== undefined) settings.compression = compression;
  const username = flags.username ?? config?.username;
  if (username !== undefined) settings.username = username;
  const requestTimeoutMs = flags.requestTimeout ?? config?.requestTimeout;
  if (requestTimeoutMs !== undefined) settings.requestTimeoutMs = requestTimeoutMs;
  if (tlsWanted) {
    const insecure = flags.tlsInsecure ?? config?.tls?.insecure ?? false;
    settings.tls = { rejectUnauthorized: !insecure };
    const caFile = flags.tlsCa ?? config?.tls?.ca;
    if (caFile !== undefined) settings.tls.caFile = caFile;
    const serverName = flags.tlsServerName ?? config?.tls?.serverName;
    if (serverName !== undefined) settings.tls.serverName = serverName;
  }
  return settings;
}
