/**
 * The wire form behind the DataStax value classes' `toBuffer`/`fromBuffer`: cqlwire's one codec
 * serialises and reads them, so a value's bytes are those the driver sends.
 */
import { decodeValue, serializeValue, Writer } from "../src/codec/mod.ts";
import { parseCqlType } from "../src/codec/types.ts";
import { bufferOut, type BufferOrBytes } from "../src/values/bytes.ts";

/** A value's serialised bytes as CQL `type` (what DataStax's `toBuffer` gives), as a Buffer. */
export function wireBytes(type: string, value: unknown): BufferOrBytes {
  return bufferOut(serializeValue(parseCqlType(type), value, new Writer(32)));
}

/** The native value of `bytes` read as CQL `type` (what DataStax's `fromBuffer` reads). */
export function fromWire(type: string, bytes: Uint8Array): unknown {
  return decodeValue(parseCqlType(type), bytes);
}
