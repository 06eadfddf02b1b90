/** The fake CQL node: see README.md. */
export { FakeNode, type FakeNodeOptions } from "./node.ts";
export { startCluster, stopAll } from "./cluster.ts";
export type { Handler, Match, Reply, ReplyContext } from "./script.ts";
export type { BatchParams, QueryParams, RecordedRequest, Value } from "./requests.ts";
export { errorBody, type ServerError } from "./errors.ts";
export * from "./results.ts";
export { type CqlType, cell } from "./types.ts";
export { Consistency, Op, QueryFlag } from "./opcodes.ts";
export { ByteWriter, concat, fromHex, toHex, utf8 } from "./bytes.ts";
export { encodeEnvelope, encodeSegment, FLAG_COMPRESSION, FLAG_CUSTOM_PAYLOAD, FLAG_TRACING, FLAG_WARNING } from "./framing.ts";
export { crc24, crc32 } from "./crc.ts";
export { lz4BlockEncode, snappyEncode } from "./compress.ts";
export { localRows, peersV2Rows, preparedIdFor, SCHEMA_VERSION } from "./defaults.ts";
