/**
 * `cqlwire/compat` in Cloudflare Workers: `stream()` is async iterable with the data/end/error
 * events and the readable/read() of a Node `Readable` (a Worker may not have node:stream);
 * bytes are Buffers when nodejs_compat defines the global.
 */
import { Client as WorkerClient } from "../workerd.ts";
import { setCompatRuntime } from "./mod.ts";
import { rowEmitter, rowsOf } from "./stream.ts";

setCompatRuntime({ Client: WorkerClient, readable: (pages) => rowEmitter(rowsOf(pages)) });

export * from "./mod.ts";
