/**
 * `cqlwire/compat` on Deno: `stream()` is a Node `Readable` and bytes are Buffers, both from
 * Deno's Node modules, as on Node: DataStax code reads rows with `on('readable')` and
 * `read()` and calls Buffer methods on blobs. Buffer is imported, not taken from the global:
 * Deno documents it as no global, and only some releases define one.
 */
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import { Client as DenoClient } from "../deno.ts";
import { setCompatRuntime } from "./mod.ts";
import { readableRows } from "./stream.ts";

setCompatRuntime({ Client: DenoClient, readable: (rows) => readableRows<Readable>(Readable as never, rows), Buffer });

export * from "./mod.ts";
