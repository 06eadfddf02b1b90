/** `cqlwire/compat` on Deno: `stream()` is async iterable with data/end/error events. */
import { Client as DenoClient } from "../deno.ts";
import { setCompatRuntime } from "./mod.ts";
import { rowEmitter } from "./stream.ts";

setCompatRuntime({ Client: DenoClient, readable: rowEmitter });

export * from "./mod.ts";
