/** `cqlwire/compat` on Node (and Bun): `stream()` is a Node `Readable`. */
import { Readable } from "node:stream";
import { Client as NodeClient } from "../node.ts";
import { setCompatRuntime } from "./mod.ts";

setCompatRuntime({ Client: NodeClient, readable: (rows) => Readable.from(rows, { objectMode: true }) });

export * from "./mod.ts";
