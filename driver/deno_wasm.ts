/**
 * The compiled WASM core for the Deno entrypoints, compiled once per process (deno.ts awaits it
 * at load). Deno >= 2.6 takes it from the module graph by a source phase import
 * (wasm_source.js): no permission, from a file or from https://jsr.io. Deno 2.0-2.5 cannot (2.1-2.5
 * take that import for an instance-phase Wasm import and fail on the module's own imports), so
 * there it is read from beside this module instead, which takes the permission to read it:
 * --allow-read (of the file) from a file, --allow-net (of the host) from https://jsr.io. The
 * version decides rather than a failed import, so an error on 2.6+ is never hidden by a
 * fallback that would then ask for a permission.
 */

/** The first Deno with source phase imports of Wasm. */
const SOURCE_PHASE_SINCE = [2, 6] as const;

/** Whether a `Deno.version.deno` string ("2.5.7", "2.6.0-rc.1") has source phase imports. */
export function hasSourcePhaseImports(version: string): boolean {
  const [major, minor] = version.split(".").map((part) => Number.parseInt(part, 10));
  if (major !== SOURCE_PHASE_SINCE[0]) return major > SOURCE_PHASE_SINCE[0];
  return minor >= SOURCE_PHASE_SINCE[1];
}

export async function loadWasmModule(): Promise<WebAssembly.Module> {
  // Imported only here, so an older Deno never evaluates it (its graph error stays lazy).
  if (hasSourcePhaseImports(Deno.version.deno)) return (await import("./wasm_source.js")).default;
  const url = new URL("./wasm/pkg/cqlwire_wasm_bg.wasm", import.meta.url);
  const bytes = url.protocol === "file:" ? await Deno.readFile(url) : await fetchBytes(url);
  return await WebAssembly.compile(bytes);
}

async function fetchBytes(url: URL): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`cqlwire: cannot load its WASM core from ${url}: HTTP ${response.status}`);
  }
  return await response.arrayBuffer();
}
