/**
 * `cqlwire/compat` on Deno: `stream()` is a Node `Readable` and bytes are Buffers, both from
 * Deno's Node modules, as on Node: DataStax code reads rows with `on('readable')` and
 * `read()` and calls Buffer methods on blobs. Buffer is imported, not taken from the global:
 * Deno documents it as no global, and only some releases define one.
 */
import { Buffer } from "node:buffer";
import * as dns from "node:dns";
import { Readable } from "node:stream";
import { Client as DenoClient } from "../deno.ts";
import { setCompatRuntime, setResultStream } from "./mod.ts";
import { nodeStreams } from "./stream.ts";

const { ResultStream, readable } = nodeStreams(Readable as never);
setCompatRuntime({ Client: DenoClient, readable: readable as never, Buffer, dns: dns as never });
setResultStream(ResultStream);

export * from "./mod.ts";
