/**
 * The two checksums of protocol v5 framing (native_protocol_v5.spec §2): CRC24 over the
 * frame header's little-endian bytes, and CRC32 over the payload. Cassandra seeds its CRC32
 * with the four bytes FA 2D 55 CA before the payload; the fake node does the same.
 */

const CRC24_INIT = 0x875060;
const CRC24_POLY = 0x1974f0b;

/** CRC24 of the first `len` bytes of `value`, least significant byte first. */
export function crc24(value: number, len: number): number {
  let crc = CRC24_INIT;
  let rest = value;
  for (let i = 0; i < len; i++) {
    crc ^= (rest % 256) << 16;
    rest = Math.floor(rest / 256);
    for (let bit = 0; bit < 8; bit++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= CRC24_POLY;
    }
  }
  return crc & 0xffffff;
}

const CRC32_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

const CRC32_SEED_BYTES = Uint8Array.of(0xfa, 0x2d, 0x55, 0xca);

function crc32Update(crc: number, b: Uint8Array): number {
  let c = crc;
  for (const x of b) c = CRC32_TABLE[(c ^ x) & 0xff] ^ (c >>> 8);
  return c;
}

/** The payload CRC32 as v5 frames carry it. */
export function crc32(payload: Uint8Array): number {
  return (crc32Update(crc32Update(0xffffffff, CRC32_SEED_BYTES), payload) ^ 0xffffffff) >>> 0;
}
