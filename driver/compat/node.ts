/** `cqlwire/compat` on Node (and Bun): `stream()` is a Node `Readable`, bytes are Buffers. */
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import { Client as NodeClient } from "../node.ts";
import { setCompatRuntime } from "./mod.ts";
import { readableRows } from "./stream.ts";

setCompatRuntime({ Client: NodeClient, readable: (rows) => readableRows<Readable>(Readable as never, rows), Buffer });

export * from "./mod.ts";
