/**
 * Address translation: the core names every node by the address it advertises (routing,
 * metadata and events stay in those names); only where the host opens a socket does it ask the
 * user's translator which endpoint to dial. So it costs nothing on the request path.
 */

import { parseHostPort } from "./options.ts";

/** Where to dial instead: `"host:port"`, `"[v6]:port"`, a bare host (same port), or `{ host, port }`. */
export type TranslatedAddress = string | { host: string; port: number };

/**
 * Called with the address the driver is about to dial (a contact point as given, or a node's
 * advertised address) before every connection it opens to it.
 */
export type AddressTranslator = (host: string, port: number) => TranslatedAddress | Promise<TranslatedAddress>;

/** The endpoint `translator` gives for `host:port`; rejects with an Error naming both. */
export async function translateAddress(translator: AddressTranslator, host: string, port: number): Promise<{ host: string; port: number }> {
  let answer: unknown;
  try {
    answer = await translator(host, port);
  } catch (e) {
    throw new Error(`address translator failed for ${host}:${port}: ${(e as Error)?.message ?? String(e)}`);
  }
  const endpoint = endpointOf(answer, port);
  if (endpoint === null) {
    throw new Error(`address translator gave a bad endpoint for ${host}:${port}: ${describe(answer)} (expected "host:port" or { host, port })`);
  }
  return endpoint;
}

function endpointOf(answer: unknown, defaultPort: number): { host: string; port: number } | null {
  // A string is read as contact points are ("host:port", "[v6]:port", a bare host).
  const { host, port } = typeof answer === "string" ? parseHostPort(answer, defaultPort) : (answer ?? {}) as { host?: unknown; port?: unknown };
  return typeof host === "string" && /^[^\s\[\]]+$/.test(host) && validPort(port) ? { host, port } : null;
}

function validPort(port: unknown): port is number {
  return typeof port === "number" && Number.isInteger(port) && port >= 1 && port <= 65535;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
  if (value === null || typeof value !== "object") return String(value);
  try {
    return JSON.stringify(value).slice(0, 80);
  } catch {
    return "an object";
  }
}
