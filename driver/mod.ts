/**
 * The runtime-independent surface of cqlwire. Runtime entrypoints (`deno.ts`, `node.ts`,
 * `workerd.ts`) initialise the WASM core, choose a transport and re-export this module.
 */
export { Client as BaseClient } from "./src/client.ts";
export { readCsvHeader, sniffInput } from "./src/client.ts";
export type { SniffedField, SniffedInput } from "./src/client.ts";
export type { BadRowKind, BadRowRecord, CsvHeaderRead, JournalEntry, BatchOptions, BatchQuery, BulkConversionOptions, BulkCounters, BulkLoadOptions, BulkState, ClientMetrics, ExecuteOptions, PageInfo, PreparedInfo, StreamOptions, TextStreamOptions } from "./src/client.ts";
export type { MemoryStats } from "./src/session.ts";
export type { ClientOptions } from "./src/options.ts";
export { ResultSet } from "./src/result.ts";
export type { ColumnInfo, ExecutionInfo, PageSource, Row, WireLengths } from "./src/result.ts";
export type { CqlSocket, RuntimeHooks, SocketFactory, SocketHandlers, SocketTarget, TlsSettings } from "./src/socket.ts";
export type { SaslAuthenticator, SaslAuthProvider, SaslCallback } from "./src/sasl.ts";
export type { AddressTranslator, TranslatedAddress } from "./src/address_translator.ts";
export {
  ArgumentError,
  AuthenticationError,
  ConnectionError,
  CqlProtocolError,
  DriverError,
  DriverInternalError,
  NoHostAvailableError,
  NotSupportedError,
  OperationTimedOutError,
  RateLimitError,
  ResponseError,
} from "./src/errors.ts";
export { TimeUuid, types, Uuid } from "./src/types.ts";
export { Metadata } from "./src/metadata.ts";
export type { ColumnMetadata, DataTypeInfo, KeyspaceMetadata, TableMetadata, UdtMetadata } from "./src/metadata.ts";
export { formatCqlType, parseCqlType, toCqlValue, unset } from "./src/codec/mod.ts";
export type { TypeInfo } from "./src/codec/mod.ts";
