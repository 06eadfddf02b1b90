/** `types`, as in the DataStax driver: consistency codes, protocol numbers and the value classes. */
import { CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp, TypeCode, unset } from "./codec/mod.ts";
import { TimeUuid, Uuid } from "./values/uuid.ts";

export const consistencies = {
  any: 0x00,
  one: 0x01,
  two: 0x02,
  three: 0x03,
  quorum: 0x04,
  all: 0x05,
  localQuorum: 0x06,
  eachQuorum: 0x07,
  serial: 0x08,
  localSerial: 0x09,
  localOne: 0x0a,
} as const;

/** The ERROR codes of the protocol, by the DataStax driver's names (`ResponseError.code`). */
export const responseErrorCodes = {
  serverError: 0x0000,
  protocolError: 0x000a,
  badCredentials: 0x0100,
  unavailableException: 0x1000,
  overloaded: 0x1001,
  isBootstrapping: 0x1002,
  truncateError: 0x1003,
  writeTimeout: 0x1100,
  readTimeout: 0x1200,
  readFailure: 0x1300,
  functionFailure: 0x1400,
  writeFailure: 0x1500,
  cdcWriteFailure: 0x1600,
  casWriteUnknown: 0x1700,
  syntaxError: 0x2000,
  unauthorized: 0x2100,
  invalid: 0x2200,
  configError: 0x2300,
  alreadyExists: 0x2400,
  unprepared: 0x2500,
  clientWriteFailure: 0x8000,
} as const;

/**
 * The protocol's type option ids, by the DataStax driver's names (`columns[i].type.code`).
 * `text` keeps the legacy id 0x000a, as there; servers send text columns as `varchar`.
 */
export const dataTypes = { ...TypeCode, text: 0x000a, varchar: 0x000d } as const;

/** How far a host is from the client, as load-balancing policies rank them. */
export const distance = { local: 0, remote: 1, ignored: 2 } as const;

export { TimeUuid, Uuid };

export const types = {
  consistencies,
  responseErrorCodes,
  dataTypes,
  distance,
  unset,
  Uuid,
  TimeUuid,
  CqlDate,
  CqlDecimal,
  CqlDuration,
  CqlTime,
  CqlTimestamp,
};
