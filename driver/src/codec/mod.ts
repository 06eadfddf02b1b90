/** The CQL codec: value and RESULT decoding, value encoding, and CQL type trees. */
export { CqlProtocolError, CqlTypeError, type ProtocolSide } from "./errors.ts";
export { Reader } from "./reader.ts";
export { Writer } from "./writer.ts";
export { CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp, type CqlValueSource, toCqlValue, type Unset, unset } from "./scalars.ts";
export {
  type ColumnSpec,
  type CustomType,
  fixedValueSize,
  formatCqlType,
  type FormatCqlTypeOptions,
  type ListType,
  type MapType,
  type NativeKind,
  type NativeType,
  nativeTypes,
  parseCqlType,
  type ParseCqlTypeOptions,
  parseCustomClass,
  parseMarshalType,
  quoteIdentifier,
  readTypeOption,
  type SetType,
  type TupleType,
  TypeCode,
  type TypeInfo,
  type UdtField,
  type UdtType,
  type VectorType,
} from "./types.ts";
export { decodeValue, encodeValue, encodeValueList, parseInetAddress, serializeValue } from "./values.ts";
export {
  type CqlResult,
  decodeCachedRows,
  parseResult,
  type PreparedResult,
  readSchemaChange,
  type Row,
  type RowsResult,
  type SchemaChangeResult,
  type SetKeyspaceResult,
  type VoidResult,
} from "./result.ts";
