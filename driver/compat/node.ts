/** `cqlwire/compat` on Node (and Bun): `stream()` is a Node `Readable`, bytes are Buffers. */
import { Buffer } from "node:buffer";
import * as dns from "node:dns";
import { Readable } from "node:stream";
import { Client as NodeClient } from "../node.ts";
import { setCompatRuntime, setResultStream } from "./mod.ts";
import { nodeStreams } from "./stream.ts";

const { ResultStream, readable } = nodeStreams(Readable as never);
setCompatRuntime({ Client: NodeClient, readable: readable as never, Buffer, dns });
setResultStream(ResultStream);

export * from "./mod.ts";
