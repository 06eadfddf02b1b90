# Builds tests/vectors/v5_frames.json with the DataStax python driver's SegmentCodec
# (cassandra-driver 3.30.1, cassandra/segment.py) as an independent peer implementation.
import io, json, struct, sys
from cassandra.connection import segment_codec_no_compression as plain, segment_codec_lz4 as lz4c
from cassandra import segment

def env(version, stream, opcode, body, flags=0):
    return struct.pack('>BBhBI', version, flags, stream, opcode, len(body)) + body

def seg(codec, payload, sc):
    b = io.BytesIO()
    codec._encode_segment(b, payload, sc)
    return b.getvalue()

ready = env(0x85, 1, 0x02, b'')
void = env(0x85, 2, 0x08, struct.pack('>i', 1))
rows_text = b''.join(struct.pack('>i', 20) + b'cqlwire-row-%011d' % i for i in range(40))
result_rows = env(0x85, 3, 0x08, struct.pack('>i', 2) + rows_text)
vectors = []
def ok(name, codec, payload, sc, note):
    frame = seg(codec, payload, sc)
    v = {"name": name, "protocol": 5}
    if codec is lz4c: v["compression"] = "lz4"
    v["hex"] = frame.hex()
    v["expect"] = {"selfContained": sc, "payloadHex": payload.hex()}
    vectors.append(v)
    return frame

def err(name, codec, frame, field):
    v = {"name": name, "protocol": 5}
    if codec is lz4c: v["compression"] = "lz4"
    v["hex"] = frame.hex()
    v["error"] = field
    vectors.append(v)

ok("uncompressed self-contained READY", plain, ready, True, "")
ok("uncompressed self-contained RESULT Void + READY", plain, void + ready, True, "")
ok("uncompressed self-contained empty payload", plain, b'', True, "")
big = env(0x85, 4, 0x08, bytes(range(256)) * 2)
ok("uncompressed non-self-contained first part of a large envelope", plain, big[:300], False, "")
ok("lz4 self-contained RESULT Rows (compressed)", lz4c, result_rows, True, "")
ok("lz4 self-contained READY stored uncompressed (uncompressed length 0)", lz4c, ready, True, "")
ok("lz4 non-self-contained part of a large envelope (compressed)", lz4c, result_rows[:700], False, "")

f = bytearray(seg(plain, ready, True)); f[0] ^= 0x04
err("uncompressed header bit flipped", plain, bytes(f), "v5 frame header crc24")
f = bytearray(seg(plain, ready, True)); f[4] ^= 0x01
err("uncompressed header crc24 byte flipped", plain, bytes(f), "v5 frame header crc24")
f = bytearray(seg(plain, void + ready, True)); f[10] ^= 0x20
err("uncompressed payload byte flipped", plain, bytes(f), "v5 frame payload crc32")
f = bytearray(seg(plain, void + ready, True)); f[-1] ^= 0x01
err("uncompressed payload crc32 byte flipped", plain, bytes(f), "v5 frame payload crc32")
f = bytearray(seg(lz4c, result_rows, True)); f[2] ^= 0x10
err("lz4 header bit flipped", lz4c, bytes(f), "v5 frame header crc24")
f = bytearray(seg(lz4c, result_rows, True)); f[20] ^= 0x01
err("lz4 compressed payload byte flipped", lz4c, bytes(f), "v5 frame payload crc32")
# Torn envelope in a self-contained frame: all CRCs valid, the envelope body overruns the payload.
err("uncompressed self-contained payload with a torn envelope", plain, seg(plain, void[:-1], True), "envelope length")
err("uncompressed self-contained payload shorter than an envelope header", plain, seg(plain, ready[:5], True), "envelope header")
# LZ4 frames whose header (with a valid CRC24) disagrees with the block.
comp = lz4c.compress(result_rows)
def lz4_frame(compressed, declared, sc=True):
    b = io.BytesIO()
    lz4c.encode_header(b, len(compressed), declared, sc)
    b.write(compressed)
    segment.write_uint_le(b, segment.compute_crc32(compressed, segment.CRC32_INITIAL))
    return b.getvalue()
err("lz4 header declares one byte more than the block holds", lz4c, lz4_frame(comp, len(result_rows) + 1), "v5 frame uncompressed length")
err("lz4 header declares one byte less than the block holds", lz4c, lz4_frame(comp, len(result_rows) - 1), "v5 frame compressed payload")
err("lz4 block of garbage with valid CRCs", lz4c, lz4_frame(b'\xff' * 24, 1000), "v5 frame compressed payload")
json.dump(vectors, sys.stdout, indent=2)
sys.stdout.write("\n")
