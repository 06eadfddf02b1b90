// The facade's executeHandle returns a plain number (no array per request): -1 when it refuses
// a request, whose reason takeError then hands out once, as the CallError other calls throw.
import "../../driver/deno.ts";
import { CallError, WasmSession } from "../../driver/wasm/pkg/cqlwire_wasm.js";
import { assertExact } from "../exact.mjs";

Deno.test("executeHandle refuses with -1 and takeError hands out the reason once", () => {
  const core = new WasmSession(JSON.stringify({ protocolVersion: 4 }));
  try {
    const handle = core.registerPrepared(new Uint8Array([1, 2, 3]), new Uint8Array(0));
    assertExact(core.takeError(), undefined, "nothing refused yet");
    // A descriptor too short to hold the options: refused before the session is asked.
    assertExact(core.executeHandle(1, handle, new Uint8Array([0, 0, 0]), 3), -1);
    const refused = core.takeError();
    if (!(refused instanceof CallError)) throw new Error(`expected a CallError, got ${refused}`);
    assertExact([refused.code, refused.message], ["ERR_OPTIONS", "malformed request options descriptor"]);
    refused.free();
    assertExact(core.takeError(), undefined, "taken once");
    // An unknown handle, and a session not connected yet: each its own reason.
    assertExact(core.executeHandle(1, handle + 1, new Uint8Array(0), 0), -1);
    const unknown = core.takeError()!;
    assertExact([unknown.code, unknown.message], ["ERR_REQUEST", "unknown prepared statement handle"]);
    unknown.free();
  } finally {
    core.free();
  }
});
