/** `cqlwire/compat` on Node (and Bun): `stream()` is a Node `Readable`. */
import { Readable } from "node:stream";
import { Client as NodeClient } from "../node.ts";
import { setCompatRuntime } from "./mod.ts";
import { readableRows } from "./stream.ts";

setCompatRuntime({ Client: NodeClient, readable: (rows) => readableRows<Readable>(Readable as never, rows) });

export * from "./mod.ts";
