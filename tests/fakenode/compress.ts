/**
 * LZ4 block and Snappy, as small as the fake node needs: full decoders for what the client
 * sends, and literal-only encoders for what the node sends (valid streams that never
 * reference back). Hostile compressed replies are built by hand in the suites, not here.
 */

/** Declared sizes above this are refused: the client under test is not the hostile side. */
const MAX_DECODED = 64 * 1024 * 1024;

export function lz4BlockDecode(src: Uint8Array, decodedLength: number): Uint8Array {
  if (decodedLength > MAX_DECODED) throw new Error(`fake node: lz4 length ${decodedLength} too large`);
  const out = new Uint8Array(decodedLength);
  let i = 0;
  let o = 0;
  const extend = (n: number): number => {
    if (n !== 15) return n;
    let b: number;
    do {
      b = src[i++];
      n += b;
    } while (b === 255 && i < src.length);
    return n;
  };
  while (i < src.length) {
    const token = src[i++];
    const literals = extend(token >>> 4);
    if (o + literals > out.length || i + literals > src.length) throw new Error("fake node: lz4 literals overrun");
    out.set(src.subarray(i, i + literals), o);
    i += literals;
    o += literals;
    if (i >= src.length) break;
    const offset = src[i] | (src[i + 1] << 8);
    i += 2;
    const match = extend(token & 0x0f) + 4;
    if (offset === 0 || offset > o || o + match > out.length) throw new Error("fake node: lz4 match out of range");
    for (let k = 0; k < match; k++, o++) out[o] = out[o - offset];
  }
  if (o !== out.length) throw new Error(`fake node: lz4 gave ${o} bytes, ${out.length} declared`);
  return out;
}

/** One literal-only LZ4 sequence: token, extended length, the bytes. */
export function lz4BlockEncode(src: Uint8Array): Uint8Array {
  const ext: number[] = [];
  if (src.length >= 15) {
    let rest = src.length - 15;
    while (rest >= 255) {
      ext.push(255);
      rest -= 255;
    }
    ext.push(rest);
  }
  const out = new Uint8Array(1 + ext.length + src.length);
  out[0] = Math.min(src.length, 15) << 4;
  out.set(ext, 1);
  out.set(src, 1 + ext.length);
  return out;
}

function readVarint(src: Uint8Array): { value: number; size: number } {
  let value = 0;
  for (let i = 0; i < 5 && i < src.length; i++) {
    value += (src[i] & 0x7f) * 2 ** (7 * i);
    if ((src[i] & 0x80) === 0) return { value, size: i + 1 };
  }
  throw new Error("fake node: bad snappy length varint");
}

export function snappyDecode(src: Uint8Array): Uint8Array {
  const { value: length, size } = readVarint(src);
  if (length > MAX_DECODED) throw new Error(`fake node: snappy length ${length} too large`);
  const out = new Uint8Array(length);
  let i = size;
  let o = 0;
  const le = (n: number): number => {
    let v = 0;
    for (let k = 0; k < n; k++) v += src[i + k] * 2 ** (8 * k);
    i += n;
    return v;
  };
  while (i < src.length) {
    const tag = src[i++];
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >>> 2;
      if (len >= 60) len = le(len - 59);
      len += 1;
      if (o + len > out.length || i + len > src.length) throw new Error("fake node: snappy literal overrun");
      out.set(src.subarray(i, i + len), o);
      i += len;
      o += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      len = 4 + ((tag >>> 2) & 7);
      offset = ((tag >>> 5) << 8) | src[i++];
    } else {
      len = (tag >>> 2) + 1;
      offset = le(kind === 2 ? 2 : 4);
    }
    if (offset === 0 || offset > o || o + len > out.length) throw new Error("fake node: snappy copy out of range");
    for (let k = 0; k < len; k++, o++) out[o] = out[o - offset];
  }
  if (o !== out.length) throw new Error(`fake node: snappy gave ${o} bytes, ${out.length} declared`);
  return out;
}

export function snappyEncode(src: Uint8Array): Uint8Array {
  const parts: number[] = [];
  let n = src.length;
  do {
    parts.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  for (let at = 0; at < src.length; at += 65536) {
    const chunk = src.subarray(at, at + 65536);
    const l = chunk.length - 1;
    if (l < 60) parts.push(l << 2);
    else parts.push(61 << 2, l & 0xff, l >>> 8);
    for (const b of chunk) parts.push(b);
  }
  return Uint8Array.from(parts);
}
