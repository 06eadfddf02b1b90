#!/usr/bin/env python3
"""Writes tests/vectors/types.json.

Hex is written by hand from native_protocol_v5.spec section 5; the asserts below re-derive
the non-obvious ones with Python's own encoders (struct, int.to_bytes), which share no code
with either decoder under test. Only the 10,000-digit varints are generated.
"""
import json
import struct
import sys
import uuid
import ipaddress

sys.set_int_max_str_digits(0)

V = []


def good(name, ty, hex_, expect, canonical_hex=None):
    v = {"name": name, "type": ty, "hex": hex_.replace(" ", ""), "expect": expect}
    if canonical_hex is not None:
        v["canonical_hex"] = canonical_hex.replace(" ", "")
    V.append(v)


def bad(name, ty, hex_, check, offset):
    """`check` and `offset`: the field both decoders (the Rust core and the TypeScript codec)
    name and the byte where they stop."""
    V.append({"name": name, "type": ty, "hex": hex_.replace(" ", ""), "error": check, "offset": offset})


# Independent helpers used only to check hand-written hex.
def i32(n):
    return struct.pack(">i", n).hex()


def varint(n):
    length = max(1, (n + (n < 0)).bit_length() // 8 + 1)
    return n.to_bytes(length, "big", signed=True).hex()


def zigzag(n):
    return (n << 1) ^ (n >> 63)


def uvint(v):
    bits = v.bit_length()
    extra = 0 if bits <= 7 else min(8, -(-(bits - 7) // 7))
    if extra == 8:
        return "ff" + v.to_bytes(8, "big").hex()
    b = bytearray(v.to_bytes(extra + 1, "big"))
    b[0] |= (0xFF << (8 - extra)) & 0xFF
    return b.hex()


def duration(m, d, n):
    return uvint(zigzag(m)) + uvint(zigzag(d)) + uvint(zigzag(n))


def f32(x):
    return struct.pack(">f", x).hex()


def f64(x):
    return struct.pack(">d", x).hex()


def widen32(hex_):
    return struct.unpack(">f", bytes.fromhex(hex_))[0]


def elem(hex_):
    return i32(len(hex_) // 2) + hex_


# ascii ------------------------------------------------------------------------------------
good("ascii word", "ascii", "68656c6c6f", "hello")
good("ascii empty string", "ascii", "", "")
good("ascii NUL, DEL and punctuation", "ascii", "00 7f 27 22", "\u0000\u007f'\"")
bad("ascii byte 0x80", "ascii", "68 80", "ascii value", 1)
bad("ascii with UTF-8 e-acute", "ascii", "63 61 66 c3 a9", "ascii value", 3)
bad("ascii byte 0xff", "ascii", "ff", "ascii value", 0)

# text / varchar ---------------------------------------------------------------------------
assert "😀".encode() == bytes.fromhex("f09f9880")
good("text empty string", "text", "", "")
good("text word", "text", "68656c6c6f", "hello")
good("text emoji", "text", "f09f9880", "😀")
good("text accents and quote", "text", "c3a9 27 c3b6", "é'ö")
good("text newline and tab", "text", "61 0a 09 62", "a\n\tb")
good("text 3-byte char U+FFFD", "text", "efbfbd", "\ufffd")
good("varchar is text", "varchar", "f09f9880 41", "😀A")
bad("text lone continuation byte", "text", "80", "text value", 0)
bad("text truncated 2-byte char", "text", "61 c3", "text value", 1)
bad("text truncated emoji", "text", "f09f98", "text value", 0)
bad("text overlong slash", "text", "c0af", "text value", 0)
bad("text encoded surrogate", "text", "eda080", "text value", 0)
bad("text beyond U+10FFFF", "text", "f4908080", "text value", 0)

# blob / custom ----------------------------------------------------------------------------
good("blob empty", "blob", "", "0x")
good("blob bytes", "blob", "00ff10ab", "0x00ff10ab")
good("blob one zero byte", "blob", "00", "0x00")
good("custom type bytes", "'org.example.MyType'", "cafe", "0xcafe")
good("custom type empty", "'org.example.MyType'", "", "0x")
bad("blob element overruns its list", "list<blob>", "00000001 00000004 0000", "list element", 8)
bad("blob element length beyond the value", "list<blob>", "00000001 7fffffff", "list element", 8)

# boolean ----------------------------------------------------------------------------------
good("boolean false", "boolean", "00", False)
good("boolean true", "boolean", "01", True)
good("boolean any non-zero byte is true", "boolean", "02", True, canonical_hex="01")
good("boolean 0xff is true", "boolean", "ff", True, canonical_hex="01")
good("boolean empty value", "boolean", "", None)
bad("boolean two bytes", "boolean", "0001", "boolean value", 0)
bad("boolean in list, two bytes", "list<boolean>", "00000001 00000002 0101", "boolean value", 8)

# tinyint / smallint / int -----------------------------------------------------------------
good("tinyint zero", "tinyint", "00", 0)
good("tinyint max", "tinyint", "7f", 127)
good("tinyint min", "tinyint", "80", -128)
good("tinyint minus one", "tinyint", "ff", -1)
bad("tinyint empty", "tinyint", "", "tinyint value", 0)
bad("tinyint two bytes", "tinyint", "0000", "tinyint value", 0)
assert struct.pack(">h", -32768).hex() == "8000"
good("smallint max", "smallint", "7fff", 32767)
good("smallint min", "smallint", "8000", -32768)
good("smallint one", "smallint", "0001", 1)
good("smallint minus two", "smallint", "fffe", -2)
bad("smallint empty", "smallint", "", "smallint value", 0)
bad("smallint one byte", "smallint", "00", "smallint value", 0)
bad("smallint three bytes", "smallint", "000000", "smallint value", 0)
good("int max", "int", "7fffffff", 2147483647)
good("int min", "int", "80000000", -2147483648)
good("int zero", "int", "00000000", 0)
good("int minus one", "int", "ffffffff", -1)
good("int 42", "int", "0000002a", 42)
good("int empty value", "int", "", None)
bad("int short", "int", "7fff", "int value", 0)
bad("int five bytes", "int", "0000000000", "int value", 0)
bad("int three bytes", "int", "000001", "int value", 0)

# bigint / counter -------------------------------------------------------------------------
good("bigint max", "bigint", "7fffffffffffffff", "9223372036854775807")
good("bigint min", "bigint", "8000000000000000", "-9223372036854775808")
good("bigint one", "bigint", "0000000000000001", "1")
good("bigint minus one", "bigint", "ffffffffffffffff", "-1")
good("bigint 2^53 + 1", "bigint", "0020000000000001", "9007199254740993")
good("bigint empty value", "bigint", "", None)
bad("bigint four bytes", "bigint", "00000001", "bigint value", 0)
bad("bigint nine bytes", "bigint", "000000000000000001", "bigint value", 0)
good("counter max", "counter", "7fffffffffffffff", "9223372036854775807")
good("counter min", "counter", "8000000000000000", "-9223372036854775808")
good("counter 1000", "counter", "00000000000003e8", "1000")
bad("counter seven bytes", "counter", "00000000000001", "counter value", 0)
bad("counter empty list element of two bytes", "list<counter>", "00000001 00000002 0001", "counter value", 8)

# varint -----------------------------------------------------------------------------------
for n, h in [(0, "00"), (1, "01"), (127, "7f"), (128, "0080"), (129, "0081"), (-1, "ff"), (-128, "80"), (-129, "ff7f")]:
    assert varint(n) == h, (n, varint(n))
    good(f"varint {n} (spec table)", "varint", h, str(n))
good("varint 2^64", "varint", "010000000000000000", str(2**64))
good("varint -2^63", "varint", "8000000000000000", str(-(2**63)))
good("varint -2^63 - 1", "varint", "ff7fffffffffffffff", str(-(2**63) - 1))
good("varint 2^127", "varint", "0080000000000000000000000000000000", str(2**127))
good("varint -(2^127)", "varint", "80000000000000000000000000000000", str(-(2**127)))
good("varint -(2^127) - 1", "varint", "ff7fffffffffffffffffffffffffffffff", str(-(2**127) - 1))
for n, h in [(2**64, "010000000000000000"), (-(2**63) - 1, "ff7fffffffffffffff"), (2**127, "0080000000000000000000000000000000"),
             (-(2**127), "80000000000000000000000000000000"), (-(2**127) - 1, "ff7fffffffffffffffffffffffffffffff")]:
    assert varint(n) == h, (n, varint(n), h)
good("varint padded 1", "varint", "0001", "1", canonical_hex="01")
good("varint padded -1", "varint", "ffff", "-1", canonical_hex="ff")
good("varint empty value", "varint", "", None)
big = int("".join(str(1 + (i * 7 + i // 13) % 9) for i in range(10_000)))
assert len(str(big)) == 10_000
good("varint 10,000 digits", "varint", varint(big), str(big))
good("varint -10,000 digits", "varint", varint(-big), str(-big))
bad("varint element overruns its set", "set<varint>", "00000001 00000003 0102", "set element", 8)

# decimal ----------------------------------------------------------------------------------
good("decimal 123.45", "decimal", "00000002 3039", "12345e-2")
good("decimal zero", "decimal", "00000000 00", "0e0")
good("decimal 0.00", "decimal", "00000002 00", "0e-2")
good("decimal -1.5", "decimal", "00000001 f1", "-15e-1")
good("decimal 1E+3 (negative scale)", "decimal", "fffffffd 01", "1e3")
good("decimal scale i32 max", "decimal", "7fffffff 01", "1e-2147483647")
good("decimal scale i32 min", "decimal", "80000000 01", "1e2147483648")
good("decimal 2^64 scale 5", "decimal", "00000005 010000000000000000", f"{2**64}e-5")
good("decimal -128 scale 0", "decimal", "00000000 80", "-128e0")
good("decimal empty value", "decimal", "", None)
long_unscaled = int("9" * 60)
good("decimal 60 nines scale 30", "decimal", "0000001e" + varint(long_unscaled), f"{long_unscaled}e-30")
good("decimal -(60 nines) scale 30", "decimal", "0000001e" + varint(-long_unscaled), f"-{long_unscaled}e-30")
bad("decimal two bytes", "decimal", "0000", "decimal scale", 0)
bad("decimal scale without unscaled value", "decimal", "00000002", "decimal unscaled value", 4)
bad("decimal three bytes", "decimal", "000000", "decimal scale", 0)

# float / double ---------------------------------------------------------------------------
for x, h in [(1.0, "3f800000"), (2.5, "40200000"), (-0.0, "80000000"), (0.0, "00000000")]:
    assert f32(x) == h
good("float 1", "float", "3f800000", 1.0)
good("float 0.1 (widened to double)", "float", "3dcccccd", widen32("3dcccccd"))
good("float -pi", "float", "c0490fdb", widen32("c0490fdb"))
good("float max", "float", "7f7fffff", widen32("7f7fffff"))
good("float smallest subnormal", "float", "00000001", widen32("00000001"))
good("float zero", "float", "00000000", 0.0)
good("float negative zero", "float", "80000000", "-0")
good("float NaN", "float", "7fc00000", "NaN")
good("float Infinity", "float", "7f800000", "Infinity")
good("float -Infinity", "float", "ff800000", "-Infinity")
good("float empty value", "float", "", None)
bad("float two bytes", "float", "3f80", "float value", 0)
bad("float five bytes", "float", "3f80000000", "float value", 0)
for x, h in [(1.0, "3ff0000000000000"), (-1.5, "bff8000000000000"), (0.1, "3fb999999999999a"), (-0.0, "8000000000000000"),
             (sys.float_info.max, "7fefffffffffffff"), (5e-324, "0000000000000001"), (1e300, "7e37e43c8800759c")]:
    assert f64(x) == h, (x, f64(x))
good("double 1", "double", "3ff0000000000000", 1.0)
good("double -1.5", "double", "bff8000000000000", -1.5)
good("double 0.1", "double", "3fb999999999999a", 0.1)
good("double max", "double", "7fefffffffffffff", sys.float_info.max)
good("double smallest subnormal", "double", "0000000000000001", 5e-324)
good("double 1e300", "double", "7e37e43c8800759c", 1e300)
good("double 2^53", "double", "4340000000000000", 9007199254740992.0)
good("double zero", "double", "0000000000000000", 0.0)
good("double negative zero", "double", "8000000000000000", "-0")
good("double NaN", "double", "7ff8000000000000", "NaN")
good("double Infinity", "double", "7ff0000000000000", "Infinity")
good("double -Infinity", "double", "fff0000000000000", "-Infinity")
good("double empty value", "double", "", None)
bad("double four bytes", "double", "3ff00000", "double value", 0)
bad("double nine bytes", "double", "3ff000000000000000", "double value", 0)

# timestamp --------------------------------------------------------------------------------
assert struct.pack(">q", 1704067200000).hex() == "0000018cc251f400"
assert struct.pack(">q", -2208988800000).hex() == "fffffdfdae01dc00"
assert struct.pack(">q", -62135596800000).hex() == "ffffc77cedd32800"
good("timestamp epoch", "timestamp", "0000000000000000", "0")
good("timestamp 2024-01-01T00:00:00Z", "timestamp", "0000018cc251f400", "1704067200000")
good("timestamp one ms before epoch", "timestamp", "ffffffffffffffff", "-1")
good("timestamp 1900-01-01", "timestamp", "fffffdfdae01dc00", "-2208988800000")
good("timestamp 0001-01-01", "timestamp", "ffffc77cedd32800", "-62135596800000")
good("timestamp i64 max", "timestamp", "7fffffffffffffff", "9223372036854775807")
good("timestamp i64 min", "timestamp", "8000000000000000", "-9223372036854775808")
good("timestamp empty value", "timestamp", "", None)
bad("timestamp four bytes", "timestamp", "00000000", "timestamp value", 0)
bad("timestamp nine bytes", "timestamp", "000000000000000000", "timestamp value", 0)

# date -------------------------------------------------------------------------------------
assert 2**31 + 19723 == 0x80004D0B and 2**31 - 25567 == 0x7FFF9C21
good("date epoch (2^31)", "date", "80000000", 0)
good("date 1969-12-31", "date", "7fffffff", -1)
good("date 2024-01-01", "date", "80004d0b", 19723)
good("date 1900-01-01", "date", "7fff9c21", -25567)
good("date wire min, -5877641-06-23", "date", "00000000", -2147483648)
good("date wire min + 1", "date", "00000001", -2147483647)
good("date wire max, 5881580-07-11", "date", "ffffffff", 2147483647)
good("date wire max - 1", "date", "fffffffe", 2147483646)
bad("date empty", "date", "", "date value", 0)
bad("date three bytes", "date", "800000", "date value", 0)
bad("date five bytes", "date", "8000000000", "date value", 0)

# time -------------------------------------------------------------------------------------
assert struct.pack(">q", 86399999999999).hex() == "00004e94914effff"
assert struct.pack(">q", 3600 * 10**9).hex() == "0000034630b8a000"
good("time midnight", "time", "0000000000000000", "0")
good("time one ns", "time", "0000000000000001", "1")
good("time 01:00:00", "time", "0000034630b8a000", "3600000000000")
good("time 23:59:59.999999999", "time", "00004e94914effff", "86399999999999")
bad("time 24:00:00 (one past max)", "time", "00004e94914f0000", "time value", 0)
bad("time negative", "time", "ffffffffffffffff", "time value", 0)
bad("time empty", "time", "", "time value", 0)
bad("time four bytes", "time", "00000000", "time value", 0)

# uuid / timeuuid --------------------------------------------------------------------------
u4 = uuid.UUID("550e8400-e29b-41d4-a716-446655440000")
u1 = uuid.UUID("d2177dd0-eaa2-11de-a572-001b779c76e3")
assert u4.bytes.hex() == "550e8400e29b41d4a716446655440000" and u1.version == 1
good("uuid v4", "uuid", "550e8400e29b41d4a716446655440000", str(u4))
good("uuid nil", "uuid", "00" * 16, "00000000-0000-0000-0000-000000000000")
good("uuid all ones", "uuid", "ff" * 16, "ffffffff-ffff-ffff-ffff-ffffffffffff")
good("uuid time-based is still a uuid", "uuid", u1.bytes.hex(), str(u1))
good("uuid empty value", "uuid", "", None)
bad("uuid fifteen bytes", "uuid", "00" * 15, "uuid value", 0)
bad("uuid seventeen bytes", "uuid", "00" * 17, "uuid value", 0)
good("timeuuid v1", "timeuuid", "d2177dd0eaa211dea572001b779c76e3", str(u1))
good("timeuuid smallest v1", "timeuuid", "00000000 0000 1000 8000 000000000000", "00000000-0000-1000-8000-000000000000")
good("timeuuid empty value", "timeuuid", "", None)
bad("timeuuid version 4", "timeuuid", "550e8400e29b41d4a716446655440000", "timeuuid value", 6)
bad("timeuuid nil (version 0)", "timeuuid", "00" * 16, "timeuuid value", 6)
bad("timeuuid fifteen bytes", "timeuuid", "d2177dd0eaa211dea572001b779c76", "timeuuid value", 0)

# inet -------------------------------------------------------------------------------------
for text in ["::1", "2001:db8::1", "fe80::202:b3ff:fe1e:8329", "::", "2001:db8:0:1::1", "2001:db8::1:0:0:1", "1::"]:
    assert str(ipaddress.ip_address(text)) == text
good("inet localhost v4", "inet", "7f000001", "127.0.0.1")
good("inet 0.0.0.0", "inet", "00000000", "0.0.0.0")
good("inet broadcast", "inet", "ffffffff", "255.255.255.255")
good("inet ::1", "inet", ipaddress.ip_address("::1").packed.hex(), "::1")
good("inet unspecified v6", "inet", "00" * 16, "::")
good("inet 2001:db8::1", "inet", ipaddress.ip_address("2001:db8::1").packed.hex(), "2001:db8::1")
good("inet link-local", "inet", ipaddress.ip_address("fe80::202:b3ff:fe1e:8329").packed.hex(), "fe80::202:b3ff:fe1e:8329")
good("inet longest zero run compressed", "inet", "20010db8000000010000000000000001", "2001:db8:0:1::1")
good("inet leftmost of equal zero runs", "inet", "20010db8000000000001000000000001", "2001:db8::1:0:0:1")
good("inet trailing zeros", "inet", "0001" + "00" * 14, "1::")
good("inet empty value", "inet", "", None)
bad("inet three bytes", "inet", "7f0000", "inet value", 0)
bad("inet five bytes", "inet", "7f00000100", "inet value", 0)
bad("inet fifteen bytes", "inet", "00" * 15, "inet value", 0)
bad("inet seventeen bytes", "inet", "00" * 17, "inet value", 0)

# duration ---------------------------------------------------------------------------------
assert duration(0, 0, 0) == "000000"
assert duration(1, 2, 3) == "020406"
assert duration(-1, -2, -3) == "010305"
assert duration(0, 0, 5400 * 10**9) == "0000fc09d29229e000"
assert duration(2**31 - 1, 0, 0) == "f0fffffffe0000"
assert duration(-(2**31), -(2**31), -(2**63)) == "f0ffffffff" + "f0ffffffff" + "ff" * 9
assert duration(0, 0, 2**63 - 1) == "0000ff" + "ff" * 7 + "fe"
assert duration(14, 0, 0) == "1c0000"
good("duration zero", "duration", "000000", {"months": 0, "days": 0, "nanos": "0"})
good("duration 1mo2d3ns", "duration", "020406", {"months": 1, "days": 2, "nanos": "3"})
good("duration -1mo2d3ns (all parts negative)", "duration", "010305", {"months": -1, "days": -2, "nanos": "-3"})
good("duration 1h30m", "duration", "0000fc09d29229e000", {"months": 0, "days": 0, "nanos": "5400000000000"})
good("duration 1y2mo", "duration", "1c0000", {"months": 14, "days": 0, "nanos": "0"})
good("duration -1 day only", "duration", "000100", {"months": 0, "days": -1, "nanos": "0"})
good("duration months i32 max", "duration", "f0fffffffe 00 00", {"months": 2147483647, "days": 0, "nanos": "0"})
good("duration all minimums", "duration", "f0ffffffff f0ffffffff ffffffffffffffffff",
     {"months": -2147483648, "days": -2147483648, "nanos": "-9223372036854775808"})
good("duration nanos i64 max", "duration", "00 00 ff ffffffffffffff fe",
     {"months": 0, "days": 0, "nanos": "9223372036854775807"})
bad("duration mixed signs", "duration", "020100", "duration value", 2)
bad("duration negative nanos with positive days", "duration", "000201", "duration value", 2)
bad("duration months beyond i32", "duration", "f100000000 00 00", "duration months", 0)
bad("duration days beyond i32", "duration", "00 f100000001 00", "duration days", 1)
bad("duration two vints", "duration", "0204", "duration nanoseconds", 2)
bad("duration four vints", "duration", "02040600", "duration value", 3)
bad("duration truncated vint", "duration", "00 00 c0", "duration nanoseconds", 3)
bad("duration empty", "duration", "", "duration months", 0)

# list -------------------------------------------------------------------------------------
good("list<int> [1, 2]", "list<int>", "00000002 00000004 00000001 00000004 00000002", [1, 2])
good("list<int> empty", "list<int>", "00000000", [])
good("list<text> with null", "list<text>", "00000002 00000001 61 ffffffff", ["a", None])
good("list<text> empty string and emoji", "list<text>", "00000002 00000000 00000004 f09f9880", ["", "😀"])
inner = "00000002" + elem("00000001") + "ffffffff"
assert inner == "00000002 00000004 00000001 ffffffff".replace(" ", "")
good("list<frozen<list<int>>> with nulls at both levels", "list<frozen<list<int>>>",
     "00000003" + elem(inner) + "ffffffff" + elem("00000000"), [[1, None], None, []])
good("list<int> element length -2 is null", "list<int>", "00000001 fffffffe", [None], canonical_hex="00000001 ffffffff")
good("list<int> with empty int element", "list<int>", "00000001 00000000", [None])
bad("list<int> negative count", "list<int>", "ffffffff", "collection element count", 0)
bad("list<int> count beyond the bytes", "list<int>", "7fffffff 00000004 00000001", "collection element count", 0)
bad("list<int> missing element", "list<int>", "00000002 00000004 00000001", "list element", 12)
bad("list<int> element of two bytes", "list<int>", "00000001 00000002 0001", "int value", 8)
bad("list<int> trailing byte", "list<int>", "00000000 00", "collection", 4)
bad("list<text> invalid UTF-8 element", "list<text>", "00000001 00000001 ff", "text value", 8)
bad("list<int> empty value", "list<int>", "", "collection element count", 0)

# set --------------------------------------------------------------------------------------
good("set<int> {1, 2}", "set<int>", "00000002 00000004 00000001 00000004 00000002", [1, 2])
good("set<text> empty", "set<text>", "00000000", [])
good("set<uuid> one", "set<uuid>", "00000001 00000010 550e8400e29b41d4a716446655440000", [str(u4)])
good("set<frozen<set<int>>> nested", "set<frozen<set<int>>>", "00000001" + elem("00000001" + elem("00000007")), [[7]])
bad("set<int> negative count", "set<int>", "80000000", "collection element count", 0)
bad("set<int> element overruns", "set<int>", "00000001 00000008 00000001", "set element", 8)
bad("set<int> trailing byte", "set<int>", "00000001 00000004 00000001 ff", "collection", 12)

# map --------------------------------------------------------------------------------------
good("map<text, int> {'a': 1}", "map<text, int>", "00000001 00000001 61 00000004 00000001", [["a", 1]])
good("map<int, text> null value", "map<int, text>", "00000001 00000004 00000001 ffffffff", [[1, None]])
good("map<text, int> null key", "map<text, int>", "00000001 ffffffff 00000004 00000001", [[None, 1]])
good("map<text, int> empty", "map<text, int>", "00000000", [])
good("map<text, int> wire order kept", "map<text, int>",
     "00000002 00000001 62 00000004 00000002 00000001 61 00000004 00000001", [["b", 2], ["a", 1]])
good("map<text, frozen<list<int>>> nested", "map<text, frozen<list<int>>>",
     "00000001 00000001 6b" + elem("00000001" + elem("00000001")), [["k", [1]]])
good("map<text, frozen<map<int, boolean>>> nested empty", "map<text, frozen<map<int, boolean>>>",
     "00000001 00000000" + elem("00000000"), [["", []]])
bad("map missing value", "map<text, int>", "00000001 00000001 61", "map entry count", 0)
bad("map negative count", "map<text, int>", "fffffffe", "map entry count", 0)
bad("map trailing byte", "map<text, int>", "00000000 00", "map", 4)
bad("map value of three bytes", "map<text, int>", "00000001 00000001 61 00000003 000001", "int value", 13)

# tuple ------------------------------------------------------------------------------------
good("tuple<int, text> (1, 'x')", "tuple<int, text>", "00000004 00000001 00000001 78", [1, "x"])
good("tuple<int, text> null first", "tuple<int, text>", "ffffffff 00000001 78", [None, "x"])
good("tuple<int, text> both null", "tuple<int, text>", "ffffffff ffffffff", [None, None])
good("tuple<int, text> missing trailing component", "tuple<int, text>", "00000004 00000001", [1])
good("tuple<int, text> no components", "tuple<int, text>", "", [])
good("tuple<int, tuple<text, boolean>> nested", "tuple<int, tuple<text, boolean>>",
     "00000004 00000002" + elem("00000000" + elem("01")), [2, ["", True]])
bad("tuple too many components", "tuple<int>", "00000004 00000001 00000004 00000002", "tuple component", 8)
bad("tuple component overruns", "tuple<int, text>", "00000004 00000001 00000005 78", "tuple component", 12)
bad("tuple int component of two bytes", "tuple<int, text>", "00000002 0001", "int value", 4)
bad("tuple trailing byte", "tuple<int, text>", "00000004 00000001 00000001 78 00", "tuple component", 13)

# udt --------------------------------------------------------------------------------------
ADDR = "udt<ks.address>{street:text,zip:int}"
good("udt full", ADDR, "00000003 616263 00000004 00003039", {"street": "abc", "zip": 12345})
good("udt missing trailing field", ADDR, "00000003 616263", {"street": "abc"})
good("udt null field", ADDR, "ffffffff 00000004 00003039", {"street": None, "zip": 12345})
good("udt no fields", ADDR, "", {})
good("udt empty string field", ADDR, "00000000", {"street": ""})
PERSON = "udt<ks.person>{name:text,tags:frozen<list<text>>,home:frozen<udt<ks.address>{street:text,zip:int}>}"
good("udt nested list and udt", PERSON,
     elem("616e6e") + elem("00000002" + elem("78") + "ffffffff") + elem(elem("") + elem("00000001")),
     {"name": "ann", "tags": ["x", None], "home": {"street": "", "zip": 1}})
good("udt quoted field names", 'udt<ks."Mixed">{"Field One":int,"x""y":text}', "00000004 00000001 00000001 7a",
     {"Field One": 1, "x\"y": "z"})
bad("udt too many fields", ADDR, "00000000 00000004 00000001 00000000", "udt field", 12)
bad("udt field overruns", ADDR, "00000005 6162", "udt field", 4)
bad("udt int field of three bytes", ADDR, "00000000 00000003 000001", "int value", 8)
bad("udt trailing byte", ADDR, "00000000 00000004 00000001 00", "udt field", 12)

# vector -----------------------------------------------------------------------------------
assert f32(1.0) + f32(2.5) + f32(-0.0) == "3f800000" "40200000" "80000000"
good("vector<float, 3>", "vector<float, 3>", "3f800000 40200000 80000000", [1.0, 2.5, "-0"])
good("vector<float, 2> NaN and zero", "vector<float, 2>", "7fc00000 00000000", ["NaN", 0.0])
good("vector<bigint, 2> extremes", "vector<bigint, 2>", "8000000000000000 7fffffffffffffff",
     ["-9223372036854775808", "9223372036854775807"])
good("vector<int, 1>", "vector<int, 1>", "00000007", [7])
good("vector<boolean, 3>", "vector<boolean, 3>", "01 00 01", [True, False, True])
good("vector<uuid, 1>", "vector<uuid, 1>", "550e8400e29b41d4a716446655440000", [str(u4)])
good("vector<vector<float, 2>, 2> nested fixed", "vector<vector<float, 2>, 2>",
     "3f800000 40200000 00000000 bf800000", [[1.0, 2.5], [0.0, -1.0]])
good("vector<text, 2> vint lengths", "vector<text, 2>", "01 61 04 f09f9880", ["a", "😀"])
good("vector<text, 2> empty string", "vector<text, 2>", "00 01 62", ["", "b"])
good("vector<text, 1> 200-byte element (2-byte vint)", "vector<text, 1>", "80c8" + "61" * 200, ["a" * 200])
good("vector<smallint, 2> variable-size in Cassandra", "vector<smallint, 2>", "02 0001 02 ffff", [1, -1])
good("vector<varint, 2>", "vector<varint, 2>", "01 01 02 012c", ["1", "300"])
good("vector<frozen<list<int>>, 1>", "vector<frozen<list<int>>, 1>", "0c" + "00000001" + elem("00000001"), [[1]])
assert uvint(200) == "80c8" and varint(300) == "012c"
good("vector<tinyint, 2> variable-size in Cassandra", "vector<tinyint, 2>", "01 7f 01 80", [127, -128])
good("vector<date, 1> variable-size in Cassandra", "vector<date, 1>", "04 80000000", [0])
good("vector<time, 1> variable-size in Cassandra", "vector<time, 1>", "08 0000034630b8a000", ["3600000000000"])
good("vector<inet, 2> variable-size", "vector<inet, 2>", "04 7f000001 10" + "00" * 15 + "01", ["127.0.0.1", "::1"])
good("vector<decimal, 1> variable-size", "vector<decimal, 1>", "06 00000002 3039", ["12345e-2"])
good("vector<timestamp, 2> fixed-size", "vector<timestamp, 2>", "0000000000000000 ffffffffffffffff", ["0", "-1"])
good("vector<double, 1> fixed-size", "vector<double, 1>", "bff8000000000000", [-1.5])
good("vector<timeuuid, 1> fixed-size", "vector<timeuuid, 1>", u1.bytes.hex(), [str(u1)])
bad("vector<tinyint, 2> packed without lengths", "vector<tinyint, 2>", "7f 80", "vector element length", 0)
bad("vector<date, 1> packed without length", "vector<date, 1>", "80000000", "date value", 2)
bad("vector<timeuuid, 1> version 4", "vector<timeuuid, 1>", "550e8400e29b41d4a716446655440000", "timeuuid value", 6)
bad("vector<float, 3> too short", "vector<float, 3>", "3f800000 40200000", "vector value", 0)
bad("vector<float, 3> too long", "vector<float, 3>", "3f800000 40200000 80000000 00000000", "vector value", 0)
bad("vector<float, 2> empty", "vector<float, 2>", "", "vector value", 0)
bad("vector<text, 2> one element", "vector<text, 2>", "01 61", "vector element length", 2)
bad("vector<text, 2> trailing byte", "vector<text, 2>", "01 61 01 62 00", "vector value", 4)
bad("vector<text, 1> element overruns", "vector<text, 1>", "05 6162", "vector element length", 0)
bad("vector<text, 1> invalid UTF-8 element", "vector<text, 1>", "01 ff", "text value", 1)
bad("vector<text, 1> truncated vint", "vector<text, 1>", "80", "vector element length", 1)

with open(sys.argv[1], "w") as f:
    f.write("[\n")
    f.write(",\n".join(json.dumps(v, ensure_ascii=False) for v in V))
    f.write("\n]\n")
print(len(V), "vectors;", sum("expect" in v for v in V), "good,", sum("error" in v for v in V), "error")
