/** The members of `types` (mod.ts makes the namespace of them, as DataStax's declarations have it). */
export { CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp, unset } from "../src/codec/mod.ts";
export { consistencies, distance, responseErrorCodes } from "../src/types.ts";
export { dataTypes } from "./datatypes.ts";
export { consistencyToString, generateTimestamp, timeuuid, uuid } from "./helpers.ts";
export { TimeUuid, Uuid } from "../src/values/uuid.ts";
export { BigDecimal, Integer, Long } from "./numbers.ts";
export { ResultSet } from "./result.ts";
export { Duration, InetAddress, LocalDate, LocalTime, Row, Tuple } from "./values.ts";
export { Vector } from "./vector.ts";
export { dataTypeNameByCode as getDataTypeNameByCode } from "../src/schema_functions.ts";

export const protocolVersion = {
  v1: 0x01,
  v2: 0x02,
  v3: 0x03,
  v4: 0x04,
  v5: 0x05,
  v6: 0x06,
  dseV1: 0x41,
  dseV2: 0x42,
  maxSupported: 0x05,
  minSupported: 0x04,
  isSupported: (v: number) => v === 4 || v === 5,
};
