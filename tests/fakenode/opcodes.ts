/** Opcodes, consistency levels and query flags of the native protocol (v4/v5 §2.4, §3). */
// The opcode table is the fault proxy's: one list for the test tools.
export { Opcode as Op, opcodeName as opName } from "../proxy/cql.ts";

export const Consistency = {
  ANY: 0x0000,
  ONE: 0x0001,
  TWO: 0x0002,
  THREE: 0x0003,
  QUORUM: 0x0004,
  ALL: 0x0005,
  LOCAL_QUORUM: 0x0006,
  EACH_QUORUM: 0x0007,
  SERIAL: 0x0008,
  LOCAL_SERIAL: 0x0009,
  LOCAL_ONE: 0x000a,
} as const;

/** Query parameter flags ([byte] in v4, [int] in v5). */
export const QueryFlag = {
  VALUES: 0x01,
  SKIP_METADATA: 0x02,
  PAGE_SIZE: 0x04,
  PAGING_STATE: 0x08,
  SERIAL_CONSISTENCY: 0x10,
  DEFAULT_TIMESTAMP: 0x20,
  NAMES_FOR_VALUES: 0x40,
  KEYSPACE: 0x80,
  NOW_IN_SECONDS: 0x100,
} as const;
