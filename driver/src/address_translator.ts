/**
 * Address translation: the core names every node by the address it advertises (routing,
 * metadata and events stay in those names); only where the host opens a socket does it ask the
 * user's translator which endpoint to dial. So it costs nothing on the request path.
 */

/** Where to dial instead: `"host:port"`, `"[v6]:port"`, a bare host (same port), or `{ host, port }`. */
export type TranslatedAddress = string | { host: string; port: number };

/**
 * Called with the address the driver is about to dial (a contact point as given, or a node's
 * advertised address) before every connection it opens to it.
 */
export type AddressTranslator = (host: string, port: number) => TranslatedAddress | Promise<TranslatedAddress>;

const HOST_PORT = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s\[\]]+))(?::(\d{1,5}))?$/;

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
  if (typeof answer === "string") {
    const m = HOST_PORT.exec(answer);
    if (!m) return null;
    const port = m[3] === undefined ? defaultPort : Number(m[3]);
    return validPort(port) ? { host: m[1] ?? m[2], port } : null;
  }
  if (answer !== null && typeof answer === "object") {
    const { host, port } = answer as { host?: unknown; port?: unknown };
    if (typeof host === "string" && host.length > 0 && validPort(port)) return { host, port };
  }
  return null;
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
