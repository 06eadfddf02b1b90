/**
 * `cqlwire/compat` on Deno: `stream()` is a Node `Readable` and bytes are Buffers, both from
 * Deno's Node modules, as on Node: DataStax code reads rows with `on('readable')` and
 * `read()` and calls Buffer methods on blobs. Buffer is imported, not taken from the global:
 * Deno documents it as no global, and only some releases define one.
 */
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import { Client as DenoClient } from "../deno.ts";
import { type RowStream, setCompatRuntime } from "./mod.ts";
import { types } from "./namespaces.ts";
import { readableRows, resultStreamClass } from "./stream.ts";

const ResultStream = resultStreamClass(Readable);
types.ResultStream = ResultStream;
setCompatRuntime({ Client: DenoClient, readable: (rows) => readableRows(ResultStream, rows) as unknown as RowStream, Buffer });

export * from "./mod.ts";
