/** `types`, as in the DataStax driver: consistency codes and the value classes. */
import { CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp, unset } from "./codec/mod.ts";

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

export const types = { consistencies, unset, CqlDate, CqlDecimal, CqlDuration, CqlTime, CqlTimestamp };
