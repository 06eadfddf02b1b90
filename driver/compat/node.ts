/** `cqlwire/compat` on Node (and Bun): `stream()` is a Node `Readable`, bytes are Buffers. */
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import { Client as NodeClient } from "../node.ts";
import { type RowStream, setCompatRuntime } from "./mod.ts";
import { types } from "./namespaces.ts";
import { readableRows, resultStreamClass } from "./stream.ts";

const ResultStream = resultStreamClass(Readable);
types.ResultStream = ResultStream;
setCompatRuntime({ Client: NodeClient, readable: (rows) => readableRows(ResultStream, rows) as unknown as RowStream, Buffer });

export * from "./mod.ts";
