// The facade's executeStaged returns a plain number (no array per request): -1 when it refuses
// a request, whose reason takeError then hands out once, as the CallError other calls throw.
import "../../driver/deno.ts";
import { CallError, WasmSession, wasmMemory } from "../../driver/wasm/pkg/cqlwire_wasm.js";
import { assertExact } from "../exact.mjs";

/** Writes `bytes` into the core's staging area, as the driver's `SessionHost.stage` does. */
function stage(core: WasmSession, bytes: Uint8Array): void {
  const at = core.stagingArea(bytes.length);
  new Uint8Array((wasmMemory() as WebAssembly.Memory).buffer, at, bytes.length).set(bytes);
}

function takeRefusal(core: WasmSession): [string, string] {
  const refused = core.takeError();
  if (!(refused instanceof CallError)) throw new Error(`expected a CallError, got ${refused}`);
  const reason: [string, string] = [refused.code, refused.message];
  refused.free();
  return reason;
}

Deno.test("executeStaged refuses with -1 and takeError hands out the reason once", () => {
  const core = new WasmSession(JSON.stringify({ protocolVersion: 4 }));
  try {
    const handle = core.registerPrepared(new Uint8Array([1, 2, 3]), new Uint8Array(0));
    assertExact(core.takeError(), undefined, "nothing refused yet");
    // A descriptor too short to hold the options: refused before the session is asked.
    stage(core, new Uint8Array([0, 0, 0]));
    assertExact(core.executeStaged(1, handle, 3, 3, -1, 0), -1);
    assertExact(takeRefusal(core), ["ERR_OPTIONS", "malformed request options descriptor"]);
    assertExact(core.takeError(), undefined, "taken once");
    // An unknown handle, and a session not connected yet: each its own reason.
    assertExact(core.executeStaged(1, handle + 1, 0, 0, -1, 0), -1);
    assertExact(takeRefusal(core), ["ERR_REQUEST", "unknown prepared statement handle"]);
    assertExact(core.executeStaged(1, handle, 0, 0, -1, 0), -1);
    assertExact(takeRefusal(core), ["ERR_REQUEST", "the session is not connected yet"]);
  } finally {
    core.free();
  }
});

Deno.test("executeStaged refuses a length beyond the staging area, and one above 64 KiB frees it", () => {
  const core = new WasmSession(JSON.stringify({ protocolVersion: 4 }));
  try {
    const handle = core.registerPrepared(new Uint8Array([1, 2, 3]), new Uint8Array(0));
    core.stagingArea(16);
    assertExact(core.executeStaged(1, handle, 17, 0, -1, 0), -1);
    assertExact(takeRefusal(core), ["ERR_REQUEST", "staged bytes beyond the staging area"]);
    // A staged request above 64 KiB: the area is freed after it, so no length is in it.
    core.stagingArea(64 * 1024 + 1);
    assertExact(core.executeStaged(1, handle, 0, 0, -1, 0), -1);
    assertExact(takeRefusal(core), ["ERR_REQUEST", "the session is not connected yet"]);
    assertExact(core.executeStaged(1, handle, 1, 0, -1, 0), -1);
    assertExact(takeRefusal(core), ["ERR_REQUEST", "staged bytes beyond the staging area"]);
    // Up to 64 KiB it is kept.
    core.stagingArea(64 * 1024);
    assertExact(core.executeStaged(1, handle, 0, 0, -1, 0), -1);
    core.takeError()?.free();
    assertExact(core.executeStaged(1, handle, 64 * 1024, 3, -1, 0), -1);
    assertExact(takeRefusal(core), ["ERR_OPTIONS", "malformed request options descriptor"]);
  } finally {
    core.free();
  }
});
