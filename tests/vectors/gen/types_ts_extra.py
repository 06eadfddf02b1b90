# Generates tests/vectors/types_ts_extra.json independently of the TS codec.
import json, struct, math, sys, uuid as uuidlib
sys.set_int_max_str_digits(0)

V = []
def good(name, typ, hexs, expect): V.append({"name": name, "type": typ, "hex": hexs, "expect": expect})
def bad(name, typ, hexs, check, offset, ts=None):
    # check/offset: the Rust core's field and byte; ts: the TS codec's (field, offset) where they differ.
    v = {"name": name, "type": typ, "hex": hexs, "error": check, "offset": offset}
    if ts is not None:
        v["ts_error"], v["ts_offset"] = ts
    V.append(v)

def i32(n): return struct.pack(">i", n).hex()
def i64(n): return struct.pack(">q", n).hex()
def varint(n):
    if n == 0: return "00"
    length = (n.bit_length() + 8) // 8  # room for the sign bit
    b = n.to_bytes(length, "big", signed=True)
    # make minimal
    while len(b) > 1 and ((b[0] == 0 and b[1] < 0x80) or (b[0] == 0xff and b[1] >= 0x80)): b = b[1:]
    return b.hex()
def uvint(n):
    assert 0 <= n < 2**64
    for size in range(1, 10):
        if size == 9 or n < 2 ** (7 * size): break
    extra = size - 1
    body = n.to_bytes(size, "big") if size < 9 else b"\xff" + n.to_bytes(8, "big")
    if size == 9: return body.hex()
    first = body[0] | ((0xff << (8 - extra)) & 0xff)
    return (bytes([first]) + body[1:]).hex()
def vint(n): return uvint((n << 1) if n >= 0 else ((-n) << 1) - 1)
def val(h): return i32(len(h) // 2) + h  # [bytes]
NULL = "ffffffff"
def text(s): return s.encode("utf-8").hex()
def coll(items): return i32(len(items)) + "".join(NULL if x is None else val(x) for x in items)
def mp(pairs): return i32(len(pairs)) + "".join((NULL if k is None else val(k)) + (NULL if v is None else val(v)) for k, v in pairs)

# strings
good("ascii empty", "ascii", "", "")
good("ascii hello", "ascii", text("hello"), "hello")
good("ascii DEL", "ascii", "7f", "\x7f")
bad("ascii high byte", "ascii", "68c3a9", "ascii value", 1, ts=("ascii", 1))
good("text empty", "text", "", "")
good("varchar alias", "varchar", text("abc"), "abc")
good("text emoji", "text", text("a😀b"), "a😀b")
good("text keeps BOM", "text", text("\ufeffx"), "\ufeffx")
good("text NUL", "text", "00", "\x00")
good("text long", "text", text("é" * 300), "é" * 300)
bad("text truncated sequence", "text", "c3", "text value", 0, ts=("text", 0))
bad("text invalid byte", "text", "ff", "text value", 0, ts=("text", 0))
bad("text encoded surrogate", "text", "eda080", "text value", 0, ts=("text", 0))
bad("text overlong", "text", "c0af", "text value", 0, ts=("text", 0))
# booleans and integers
good("boolean false", "boolean", "00", False)
good("boolean true", "boolean", "01", True)
good("boolean empty is null", "boolean", "", None)
bad("boolean two bytes", "boolean", "0001", "boolean value", 0, ts=("boolean", 0))
good("tinyint max", "tinyint", "7f", 127)
good("tinyint min", "tinyint", "80", -128)
bad("tinyint empty", "tinyint", "", "tinyint value", 0, ts=("tinyint", 0))
bad("smallint empty", "smallint", "", "smallint value", 0, ts=("smallint", 0))
bad("tinyint two bytes", "tinyint", "0001", "tinyint value", 0, ts=("tinyint", 0))
good("smallint max", "smallint", "7fff", 32767)
good("smallint min", "smallint", "8000", -32768)
bad("smallint one byte", "smallint", "01", "smallint value", 0, ts=("smallint", 0))
good("int max", "int", "7fffffff", 2147483647)
good("int min", "int", "80000000", -2147483648)
good("int zero", "int", "00000000", 0)
good("int minus one", "int", "ffffffff", -1)
good("int empty is null", "int", "", None)
bad("int short", "int", "7fff", "int value", 0, ts=("int", 0))
bad("int long", "int", "0000000000", "int value", 0, ts=("int", 0))
good("bigint max", "bigint", i64(2**63 - 1), str(2**63 - 1))
good("bigint min", "bigint", i64(-2**63), str(-2**63))
good("bigint 2^53+1", "bigint", i64(2**53 + 1), str(2**53 + 1))
bad("bigint seven bytes", "bigint", "00" * 7, "bigint value", 0, ts=("bigint", 0))
good("counter", "counter", i64(-42), "-42")
# varint
for n in [0, 1, 127, 128, 129, -1, -128, -129, 255, 256, -256, -257, 2**31, -2**31 - 1, 2**47 - 1, -2**47, 2**47, -2**47 - 1, 2**53 + 1, 2**55 - 1, -2**55, 2**63, -2**63 - 1, 2**64, 2**200 + 12345, -(2**200) + 7]:
    good(f"varint {n if abs(n) < 10**20 else ('big ' + str(n)[:12] + '… (' + str(len(str(n))) + ' chars)')}", "varint", varint(n), str(n))
big = int("9" * 10000)
good("varint 10k digits", "varint", varint(big), str(big))
good("varint -10k digits", "varint", varint(-big - 1), str(-big - 1))
good("varint empty is null", "varint", "", None)
# floats
def f32(x): return struct.pack(">f", x).hex()
def f64(x): return struct.pack(">d", x).hex()
good("float one", "float", f32(1.0), 1.0)
good("float NaN", "float", "7fc00000", "NaN")
good("float -0", "float", "80000000", "-0")
good("float inf", "float", "7f800000", "Infinity")
good("float -inf", "float", "ff800000", "-Infinity")
good("float max", "float", "7f7fffff", struct.unpack(">f", bytes.fromhex("7f7fffff"))[0])
good("float min subnormal", "float", "00000001", struct.unpack(">f", bytes.fromhex("00000001"))[0])
good("float 0.1", "float", f32(0.1), struct.unpack(">f", bytes.fromhex(f32(0.1)))[0])
bad("float three bytes", "float", "3f8000", "float value", 0, ts=("float", 0))
good("double 1.5", "double", f64(1.5), 1.5)
good("double NaN", "double", "7ff8000000000000", "NaN")
good("double -0", "double", f64(-0.0), "-0")
good("double inf", "double", f64(math.inf), "Infinity")
good("double -inf", "double", f64(-math.inf), "-Infinity")
good("double max", "double", f64(1.7976931348623157e308), 1.7976931348623157e308)
good("double min subnormal", "double", f64(5e-324), 5e-324)
good("double 0.1", "double", f64(0.1), 0.1)
bad("double four bytes", "double", "3ff80000", "double value", 0, ts=("double", 0))
# decimal
good("decimal 123.45", "decimal", i32(2) + varint(12345), "12345e-2")
good("decimal -0.001", "decimal", i32(3) + varint(-1), "-1e-3")
good("decimal 1e3 (negative scale)", "decimal", i32(-3) + varint(1), "1e3")
good("decimal scale 0", "decimal", i32(0) + varint(5), "5e0")
good("decimal huge", "decimal", i32(2**31 - 1) + varint(-(2**100)), f"{-(2**100)}e-{2**31 - 1}")
good("decimal 10k digits", "decimal", i32(10) + varint(big), f"{big}e-10")
bad("decimal scale only", "decimal", i32(2), "decimal unscaled value", 4, ts=("decimal", 0))
bad("decimal short scale", "decimal", "000002", "decimal scale", 0, ts=("decimal", 0))
# timestamp
good("timestamp epoch", "timestamp", i64(0), "0")
good("timestamp before epoch", "timestamp", i64(-1), "-1")
good("timestamp 1900", "timestamp", i64(-2208988800000), "-2208988800000")
good("timestamp Date max", "timestamp", i64(8640000000000000), "8640000000000000")
good("timestamp past Date max", "timestamp", i64(8640000000000001), "8640000000000001")
good("timestamp i64 max", "timestamp", i64(2**63 - 1), str(2**63 - 1))
good("timestamp i64 min", "timestamp", i64(-2**63), str(-2**63))
bad("timestamp short", "timestamp", "00000000", "timestamp value", 0, ts=("timestamp", 0))
# date
def date(days): return struct.pack(">I", days + 2**31).hex()
good("date epoch", "date", date(0), 0)
good("date 1969-12-31", "date", date(-1), -1)
good("date 1582-10-14", "date", date(-141428), -141428)
good("date min", "date", "00000000", -2**31)
good("date max", "date", "ffffffff", 2**31 - 1)
good("date 10000-01-01", "date", date(2932897), 2932897)
bad("date empty", "date", "", "date value", 0, ts=("date", 0))
bad("date short", "date", "800000", "date value", 0, ts=("date", 0))
# time
good("time midnight", "time", i64(0), "0")
good("time last ns", "time", i64(86399999999999), "86399999999999")
bad("time one day", "time", i64(86400000000000), "time value", 0, ts=("time", 0))
bad("time empty", "time", "", "time value", 0, ts=("time", 0))
bad("time negative", "time", i64(-1), "time value", 0, ts=("time", 0))
# duration
def dur(m, d, n): return vint(m) + vint(d) + vint(n)
good("duration small", "duration", dur(1, 2, 3), {"months": 1, "days": 2, "nanos": "3"})
good("duration negative", "duration", dur(-1, -2, -3), {"months": -1, "days": -2, "nanos": "-3"})
good("duration zero", "duration", dur(0, 0, 0), {"months": 0, "days": 0, "nanos": "0"})
good("duration i32 and i64 max", "duration", dur(2**31 - 1, 2**31 - 1, 2**63 - 1), {"months": 2**31 - 1, "days": 2**31 - 1, "nanos": str(2**63 - 1)})
good("duration i32 and i64 min", "duration", dur(-2**31, -2**31, -2**63), {"months": -2**31, "days": -2**31, "nanos": str(-2**63)})
good("duration 1h", "duration", dur(0, 0, 3600 * 10**9), {"months": 0, "days": 0, "nanos": str(3600 * 10**9)})
bad("duration empty", "duration", "", "duration months", 0, ts=("duration", 0))
bad("duration months overflow", "duration", dur(2**31, 0, 0), "duration months", 0, ts=("duration", 0))
bad("duration mixed signs", "duration", dur(1, -1, 0), "duration value", 2, ts=("duration", 0))
bad("duration two vints", "duration", vint(1) + vint(2), "duration nanoseconds", 2, ts=("duration", 2))
bad("duration truncated vint", "duration", "c0", "duration months", 1, ts=("duration", 0))
bad("duration trailing", "duration", dur(1, 2, 3) + "00", "duration value", 3, ts=("duration", 3))
# uuid
u = "123e4567-e89b-12d3-a456-426614174000"
good("uuid", "uuid", uuidlib.UUID(u).hex, u)
good("uuid v4", "uuid", "f47ac10b58cc4372a5670e02b2c3d479", "f47ac10b-58cc-4372-a567-0e02b2c3d479")
good("timeuuid", "timeuuid", uuidlib.UUID(u).hex, u)
good("uuid empty is null", "uuid", "", None)
bad("timeuuid version 4", "timeuuid", "f47ac10b58cc4372a5670e02b2c3d479", "timeuuid value", 6, ts=("timeuuid", 6))
bad("uuid 15 bytes", "uuid", "00" * 15, "uuid value", 0, ts=("uuid", 0))
bad("uuid 17 bytes", "uuid", "00" * 17, "uuid value", 0, ts=("uuid", 0))
# inet
good("inet empty is null", "inet", "", None)
good("inet v4", "inet", "7f000001", "127.0.0.1")
good("inet v4 broadcast", "inet", "ffffffff", "255.255.255.255")
good("inet ::1", "inet", "00" * 15 + "01", "::1")
good("inet ::", "inet", "00" * 16, "::")
good("inet 2001:db8::1", "inet", "20010db8" + "00" * 11 + "01", "2001:db8::1")
good("inet mapped v4", "inet", "00" * 10 + "ffff" + "01020304", "::ffff:1.2.3.4")
good("inet longest zero run", "inet", "0001000000000002000000000000" + "0003", "1:0:0:2::3")
good("inet first of equal runs", "inet", "00010000000000020000000000030004", "1::2:0:0:3:4")
good("inet single zero not shortened", "inet", "00010000000200030004000500060007", "1:0:2:3:4:5:6:7")
bad("inet five bytes", "inet", "7f00000100", "inet value", 0, ts=("inet", 0))
# blob / custom
good("blob empty", "blob", "", "0x")
good("blob bytes", "blob", "00ff10", "0x00ff10")
good("custom class", "'org.example.MyType'", "cafe", "0xcafe")
# collections
good("list<int>", "list<int>", coll([i32(1), i32(2)]), [1, 2])
good("list<int> empty", "list<int>", coll([]), [])
good("list<int> null element", "list<int>", coll([i32(1), None]), [1, None])
good("list<text> empty strings", "list<text>", coll(["", text("😀")]), ["", "😀"])
bad("list<int> empty bytes", "list<int>", "", "collection element count", 0, ts=("list", 0))
bad("map empty bytes", "map<int, int>", "", "map entry count", 0, ts=("map", 0))
bad("list<int> count too big", "list<int>", i32(3) + val(i32(1)), "collection element count", 0, ts=("list", 0))
bad("list<int> negative count", "list<int>", i32(-1), "collection element count", 0, ts=("list", 0))
bad("list<int> element too long", "list<int>", i32(1) + i32(8) + i32(1), "list element", 8, ts=("list", 4))
bad("list<int> bad element size", "list<int>", coll(["0001"]), "int value", 8, ts=("int", 8))
bad("list<int> trailing", "list<int>", coll([i32(1)]) + "00", "collection", 12, ts=("list", 12))
good("set<text>", "set<text>", coll([text("a"), text("b")]), ["a", "b"])
good("map<text, int>", "map<text, int>", mp([(text("a"), i32(1)), (text("b"), i32(-1))]), [["a", 1], ["b", -1]])
good("map<text, frozen<list<int>>> nested with nulls", "map<text, frozen<list<int>>>",
     mp([(text("k"), coll([i32(7), None])), (text("n"), None)]), [["k", [7, None]], ["n", None]])
good("list<frozen<list<int>>> null inner", "list<frozen<list<int>>>", coll([coll([]), None, coll([i32(3)])]), [[], None, [3]])
good("list<frozen<map<int, frozen<set<text>>>>>", "list<frozen<map<int, frozen<set<text>>>>>",
     coll([mp([(i32(1), coll([text("x")]))])]), [[[1, ["x"]]]])
bad("map count too big", "map<int, int>", i32(1) + val(i32(1)), "map value", 12, ts=("map", 12))
# tuples
good("tuple<int, text>", "tuple<int, text>", val(i32(1)) + val(text("a")), [1, "a"])
good("tuple<int, text> null", "tuple<int, text>", NULL + val(text("")), [None, ""])
good("frozen tuple nested", "frozen<tuple<int, tuple<bigint, boolean>>>", val(i32(5)) + val(val(i64(-1)) + val("01")), [5, ["-1", True]])
good("tuple without its last component", "tuple<int, text>", val(i32(1)), [1])
good("tuple empty", "tuple<int, text>", "", [])
bad("tuple trailing", "tuple<int>", val(i32(1)) + "00", "tuple component", 8, ts=("tuple", 8))
# udts
good("udt", "udt<ks.address>{street:text,zip:int}", val(text("Main")) + val(i32(12345)), {"street": "Main", "zip": 12345})
good("udt null field", "udt<ks.address>{street:text,zip:int}", NULL + val(i32(1)), {"street": None, "zip": 1})
good("udt __proto__ field", 'udt<ks.t>{"__proto__":int}', val(i32(1)), {"__proto__": 1})
good("udt nested in list", "list<frozen<udt<ks.p>{x:int,y:int}>>", coll([val(i32(1)) + val(i32(2))]), [{"x": 1, "y": 2}])
good("udt without its last field", "udt<ks.address>{street:text,zip:int}", val(text("Main")), {"street": "Main"})
good("udt empty", "udt<ks.address>{street:text,zip:int}", "", {})
bad("udt extra field", "udt<ks.p>{x:int}", val(i32(1)) + val(i32(2)), "udt field", 8, ts=("udt p", 8))
bad("udt truncated field", "udt<ks.p>{x:int}", i32(4) + "0000", "udt field", 4, ts=("udt p", 0))
# vectors
good("vector<float, 3>", "vector<float, 3>", f32(1) + f32(-2.5) + f32(3), [1.0, -2.5, 3.0])
good("vector<float, 2> special", "vector<float, 2>", "7fc00000" + "80000000", ["NaN", "-0"])
good("vector<double, 2>", "vector<double, 2>", f64(0.1) + f64(-1e300), [0.1, -1e300])
good("vector<int, 2>", "vector<int, 2>", i32(7) + i32(-7), [7, -7])
good("vector<bigint, 1>", "vector<bigint, 1>", i64(2**63 - 1), [str(2**63 - 1)])
good("vector<uuid, 1>", "vector<uuid, 1>", uuidlib.UUID(u).hex, [u])
good("vector<text, 2>", "vector<text, 2>", uvint(1) + text("a") + uvint(2) + text("bc"), ["a", "bc"])
good("vector<text, 1> long element", "vector<text, 1>", uvint(200) + text("x" * 200), ["x" * 200])
good("vector<varint, 2>", "vector<varint, 2>", uvint(1) + varint(-1) + uvint(2) + varint(128), ["-1", "128"])
good("vector<smallint, 2> is variable-size", "vector<smallint, 2>", uvint(2) + "0001" + uvint(2) + "ffff", [1, -1])
good("vector<date, 1> is variable-size", "vector<date, 1>", uvint(4) + date(-1), [-1])
good("vector<frozen<list<int>>, 2>", "vector<frozen<list<int>>, 2>", uvint(4) + coll([]) + uvint(12) + coll([i32(9)]), [[], [9]])
bad("vector<float, 3> empty", "vector<float, 3>", "", "vector value", 0, ts=("vector<float, 3>", 0))
bad("vector<text, 1> empty", "vector<text, 1>", "", "vector element length", 0, ts=("vector<text, 1>", 0))
bad("vector<float, 3> short", "vector<float, 3>", f32(1) + f32(2), "vector value", 0, ts=("vector<float, 3>", 0))
bad("vector<float, 1> trailing", "vector<float, 1>", f32(1) + "00", "vector value", 0, ts=("vector<float, 1>", 0))
bad("vector<text, 2> missing element", "vector<text, 2>", uvint(1) + text("a"), "vector element length", 2, ts=("vector<text, 2>", 2))
bad("vector<text, 1> element past end", "vector<text, 1>", uvint(5) + text("ab"), "vector element length", 0, ts=("vector<text, 1>", 0))
bad("vector<text, 1> trailing", "vector<text, 1>", uvint(1) + text("a") + "00", "vector value", 2, ts=("vector<text, 1>", 2))

V = [v for v in V if v is not None]
names = [v["name"] for v in V]
assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]
import os
json.dump(V, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "types_ts_extra.json"), "w"), indent=1, ensure_ascii=False)
print(len(V))
