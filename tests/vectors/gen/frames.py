# Builds tests/vectors/frames.json: whole response frames (9-byte header + body) of every
# RESULT kind, every ERROR code, EVENTs, SUPPORTED, READY, AUTHENTICATE, AUTH_CHALLENGE and
# AUTH_SUCCESS, for protocol v4 and v5 (v5 frames are the envelopes inside the outer framing
# of v5_frames.json).
#
# What is independent here: the DataStax python driver (cassandra-driver 3.30.1) writes the
# protocol's primitives (write_int, write_string, write_inet, write_stringmultimap, ...) and
# serialises every cell value (its cqltypes); then its own decoder
# (ProtocolHandler.decode_message) reads each frame back, and `expect` is made from what *it*
# decoded, never from the inputs. Built by hand: the order of the fields in each body (the
# python driver has no response encoders), the [option] bytes of column types, and the CAS
# <contentions> of a v5 WriteTimeout and Scylla-free details the python driver does not read
# (asserted against the input instead, marked "not read by the python driver" below).
#
#   python3 -m venv target/venv-frames && target/venv-frames/bin/pip install cassandra-driver==3.30.1
#   target/venv-frames/bin/python -P tests/vectors/gen/frames.py > tests/vectors/frames.json
import decimal, io, json, math, struct, sys, uuid, datetime, calendar
from collections import namedtuple

import cassandra
from cassandra import cqltypes as ct
from cassandra import util
from cassandra.protocol import (ProtocolHandler, write_int, write_short, write_string, write_longstring,
                                write_stringlist, write_stringmultimap, write_inet, write_byte, write_value)

assert cassandra.__version__ == "3.30.1", cassandra.__version__

OPCODES = {"ERROR": 0x00, "READY": 0x02, "AUTHENTICATE": 0x03, "SUPPORTED": 0x06, "RESULT": 0x08,
           "EVENT": 0x0C, "AUTH_CHALLENGE": 0x0E, "AUTH_SUCCESS": 0x10}
CONSISTENCY = {0: "ANY", 1: "ONE", 2: "TWO", 3: "THREE", 4: "QUORUM", 5: "ALL", 6: "LOCAL_QUORUM",
               7: "EACH_QUORUM", 8: "SERIAL", 9: "LOCAL_SERIAL", 10: "LOCAL_ONE"}

# ---------------------------------------------------------------------------------------------
# Column types: (CQL text as tests/vectors/README.md writes it, [option] bytes, python cqltype)

def opt(code, *rest):
    b = io.BytesIO()
    write_short(b, code)
    for r in rest:
        b.write(r)
    return b.getvalue()

def s(text):
    b = io.BytesIO()
    write_string(b, text)
    return b.getvalue()

def short(n):
    return struct.pack(">H", n)

NATIVE = {"ascii": 0x01, "bigint": 0x02, "blob": 0x03, "boolean": 0x04, "counter": 0x05, "decimal": 0x06,
          "double": 0x07, "float": 0x08, "int": 0x09, "timestamp": 0x0B, "uuid": 0x0C, "text": 0x0D,
          "varint": 0x0E, "timeuuid": 0x0F, "inet": 0x10, "date": 0x11, "time": 0x12, "smallint": 0x13,
          "tinyint": 0x14, "duration": 0x15}

class T:
    def __init__(self, cql, option, py):
        self.cql, self.option, self.py = cql, option, py

PY_NATIVE = {"ascii": ct.AsciiType, "bigint": ct.LongType, "blob": ct.BytesType, "boolean": ct.BooleanType,
             "counter": ct.CounterColumnType, "decimal": ct.DecimalType, "double": ct.DoubleType, "float": ct.FloatType,
             "int": ct.Int32Type, "timestamp": ct.DateType, "uuid": ct.UUIDType, "text": ct.VarcharType,
             "varint": ct.IntegerType, "timeuuid": ct.TimeUUIDType, "inet": ct.InetAddressType, "date": ct.SimpleDateType,
             "time": ct.TimeType, "smallint": ct.ShortType, "tinyint": ct.ByteType, "duration": ct.DurationType}

def native(name):
    return T(name, opt(NATIVE[name]), PY_NATIVE[name])

def frozen(t):
    return "frozen<%s>" % t.cql if t.cql.split("<")[0] in ("list", "set", "map") or t.cql.startswith("udt<") else t.cql

def list_of(e):
    return T("list<%s>" % frozen(e), opt(0x20, e.option), ct.ListType.apply_parameters((e.py,)))

def set_of(e):
    return T("set<%s>" % frozen(e), opt(0x22, e.option), ct.SetType.apply_parameters((e.py,)))

def map_of(k, v):
    return T("map<%s, %s>" % (frozen(k), frozen(v)), opt(0x21, k.option, v.option), ct.MapType.apply_parameters((k.py, v.py)))

def tuple_of(*items):
    return T("tuple<%s>" % ", ".join(frozen(i) for i in items), opt(0x31, short(len(items)), *[i.option for i in items]),
             ct.TupleType.apply_parameters(tuple(i.py for i in items)))

def udt(ks, name, fields):
    option = opt(0x30, s(ks), s(name), short(len(fields)), *[s(f) + t.option for f, t in fields])
    py = ct.UserType.make_udt_class(ks, name, tuple(f for f, _ in fields), tuple(t.py for _, t in fields))
    return T("udt<%s.%s>{%s}" % (ks, name, ",".join("%s:%s" % (f, frozen(t)) for f, t in fields)), option, py)

def vector_of(e, n):
    marshal = "org.apache.cassandra.db.marshal." + ("UTF8Type" if e.cql == "text" else e.py.__name__)
    cls = "org.apache.cassandra.db.marshal.VectorType(%s, %d)" % (marshal, n)
    return T("vector<%s, %d>" % (e.cql, n), opt(0x00, s(cls)), ct.lookup_casstype(cls))

# ---------------------------------------------------------------------------------------------
# Canonical JSON (tests/vectors/README.md) of what the python driver decoded.

EPOCH = datetime.datetime(1970, 1, 1)

def canon(py, v):
    if v is None or v is util.EMPTY if hasattr(util, "EMPTY") else v is None:
        return None
    sub = getattr(py, "subtypes", ())
    name = py.typename
    if issubclass(py, ct.VectorType):
        return [canon(py.subtype, x) for x in v]
    if issubclass(py, ct.UserType):
        return {f: canon(t, x) for f, t, x in zip(py.fieldnames, py.subtypes, v)}
    if issubclass(py, ct.TupleType):
        return [canon(t, x) for t, x in zip(sub, v)]
    if issubclass(py, ct.MapType):
        return [[canon(sub[0], k), canon(sub[1], x)] for k, x in v.items()]
    if issubclass(py, (ct.ListType, ct.SetType)):
        return [canon(sub[0], x) for x in v]
    if py in (ct.LongType, ct.CounterColumnType, ct.IntegerType):
        return str(v)
    if py in (ct.FloatType, ct.DoubleType):
        if math.isnan(v): return "NaN"
        if math.isinf(v): return "Infinity" if v > 0 else "-Infinity"
        if v == 0 and math.copysign(1, v) < 0: return "-0"
        return v
    if py is ct.DecimalType:
        sign, digits, exp = v.as_tuple()
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        return "%de%d" % (unscaled, exp)
    if py is ct.BytesType:
        return "0x" + bytes(v).hex()
    if py in (ct.UUIDType, ct.TimeUUIDType):
        return str(v)
    if py is ct.DateType:
        delta = v - EPOCH
        return str((delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000)
    if py is ct.SimpleDateType:
        return v.days_from_epoch
    if py is ct.TimeType:
        return str(v.nanosecond_time)
    if py is ct.DurationType:
        return {"months": v.months, "days": v.days, "nanos": str(v.nanoseconds)}
    if py in (ct.AsciiType, ct.UTF8Type, ct.VarcharType, ct.BooleanType, ct.Int32Type, ct.ShortType, ct.ByteType, ct.InetAddressType):
        return v
    raise ValueError("no canonical form for %s" % name)

# ---------------------------------------------------------------------------------------------
# Frames

def frame(version, opcode, body, stream=1, flags=0):
    b = io.BytesIO()
    b.write(struct.pack(">BBhB", 0x80 | version, flags, stream, OPCODES[opcode]))
    write_int(b, len(body))
    return b.getvalue() + body

def decode(version, opcode, body, stream=1):
    return ProtocolHandler.decode_message(version, {}, stream, 0, OPCODES[opcode], body, None, [])

vectors = []

def add(name, version, opcode, body, expect, stream=1):
    vectors.append({"name": name, "protocol": version, "opcode": opcode,
                    "hex": frame(version, opcode, body, stream).hex(), "expect": expect})

def body_of(*writes):
    b = io.BytesIO()
    for w in writes:
        w(b)
    return b.getvalue()

# ---- RESULT ---------------------------------------------------------------------------------

def column_json(ks, table, name, t):
    return {"keyspace": ks, "table": table, "name": name, "type": t.cql}

def metadata(b, columns, flags, ks_table=None, paging_state=None, new_metadata_id=None):
    write_int(b, flags)
    write_int(b, len(columns))
    if paging_state is not None:
        write_value(b, paging_state)
    if new_metadata_id is not None:
        write_short(b, len(new_metadata_id)); b.write(new_metadata_id)
    if ks_table is not None:
        write_string(b, ks_table[0]); write_string(b, ks_table[1])
    for c in columns:
        if ks_table is None:
            write_string(b, c[0]); write_string(b, c[1])
        write_string(b, c[2]); b.write(c[3].option)

def rows_body(version, columns, rows, global_spec=True, paging_state=None, new_metadata_id=None, raw_cells=None):
    """columns: (ks, table, name, T); rows: python values serialised by the python driver."""
    b = io.BytesIO()
    write_int(b, 2)
    flags = (1 if global_spec else 0) | (2 if paging_state is not None else 0) | (8 if new_metadata_id is not None else 0)
    metadata(b, columns, flags, (columns[0][0], columns[0][1]) if global_spec else None, paging_state, new_metadata_id)
    write_int(b, len(rows))
    for row in rows:
        for c, v in zip(columns, row):
            if isinstance(v, Raw):
                write_value(b, v.bytes)
            else:
                try:
                    write_value(b, None if v is None else c[3].py.to_binary(v, version))
                except Exception as e:
                    raise ValueError("column %s value %r: %s" % (c[2], v, e))
    return b.getvalue()

class Raw:
    """Cell bytes written as is (the empty value, a legal non-canonical encoding)."""
    def __init__(self, b): self.bytes = b

def add_rows(name, version, columns, rows, **kw):
    body = rows_body(version, columns, rows, **kw)
    msg = decode(version, "RESULT", body)
    assert msg.kind == 2
    cols = msg.column_metadata
    assert [(c[0], c[1], c[2]) for c in cols] == [(c[0], c[1], c[2]) for c in columns], name
    for got, c in zip(msg.column_types, columns):
        assert got.cass_parameterized_type(full=True) == c[3].py.cass_parameterized_type(full=True), (name, c[2])
    expect = {"kind": "rows", "columns": [column_json(c[0], c[1], c[2], c[3]) for c in columns],
              "rows": [[canon(t, v) for t, v in zip(msg.column_types, r)] for r in msg.parsed_rows],
              "pageState": None if msg.paging_state is None else msg.paging_state.hex()}
    if kw.get("new_metadata_id") is not None:
        # The python driver reads <new_metadata_id> into result_metadata_id.
        expect["newMetadataId"] = msg.result_metadata_id.hex()
    add(name, version, "RESULT", body, expect)

for v in (4, 5):
    add("RESULT Void v%d" % v, v, "RESULT", body_of(lambda b: write_int(b, 1)), {"kind": "void"})
    body = body_of(lambda b: write_int(b, 3), lambda b: write_string(b, "frames_ks"))
    assert decode(v, "RESULT", body).new_keyspace == "frames_ks"
    add("RESULT Set_keyspace v%d" % v, v, "RESULT", body, {"kind": "setKeyspace", "keyspace": "frames_ks"})

# Every native type, with edge values, then nulls, then the legacy empty value where legal.
N = {n: native(n) for n in NATIVE}
address = udt("frames_ks", "address", [("street", N["text"]), ("zip", N["int"])])
scalar_cols = [("frames_ks", "all_types", n, N[n]) for n in
               ("ascii", "bigint", "blob", "boolean", "decimal", "double", "float", "int", "timestamp", "uuid",
                "text", "varint", "timeuuid", "inet", "date", "time", "smallint", "tinyint", "duration")]
row_a = ["plain ascii", -9223372036854775808, b"\x00\xff\x10", True, decimal.Decimal("-123.4500"), float("nan"),
         -0.0, 2147483647, datetime.datetime(2023, 11, 14, 22, 13, 20, 123000),
         uuid.UUID("01234567-89ab-cdef-0123-456789abcdef"), "héllo ✓", -(2 ** 70) - 1,
         uuid.UUID("fe2b4360-28c6-11e2-81c1-0800200c9a66"), "2001:db8::1", util.Date(-1), util.Time(86399999999999),
         -32768, -128, util.Duration(-1, -2, -3)]
row_b = ["", 0, b"", False, decimal.Decimal("0"), float("-inf"), 1.5, -1, datetime.datetime(1969, 12, 31, 23, 59, 59, 999000),
         uuid.UUID("00000000-0000-0000-0000-000000000000"), "", 0, uuid.UUID("00000000-0000-1000-8000-000000000000"),
         "127.0.0.1", util.Date(0), util.Time(0), 32767, 127, util.Duration(14, 3, 1000000001)]
row_null = [None] * len(scalar_cols)
for v in (4, 5):
    add_rows("RESULT Rows every native type v%d" % v, v, scalar_cols, [row_a, row_b, row_null])

# Zero bytes: the legacy empty value (null) for int-like types, "" for text and blob.
empty_cols = [("frames_ks", "empties", n, N[n]) for n in ("int", "bigint", "boolean", "double", "uuid", "inet", "text", "blob", "varint")]
add_rows("RESULT Rows empty values v4", 4, empty_cols, [[Raw(b"")] * len(empty_cols)])

coll_cols = [("frames_ks", "colls", "l", list_of(N["int"])),
             ("frames_ks", "colls", "s", set_of(N["text"])),
             ("frames_ks", "colls", "m", map_of(N["text"], list_of(N["int"]))),
             ("frames_ks", "colls", "t", tuple_of(N["int"], N["text"], N["double"])),
             ("frames_ks", "colls", "u", address),
             ("frames_ks", "colls", "lu", list_of(address)),
             ("frames_ks", "colls", "v", vector_of(N["float"], 3)),
             ("frames_ks", "colls", "vt", vector_of(N["text"], 2))]
Address = namedtuple("Address", ["street", "zip"])
coll_a = [[1, -2, 3], util.SortedSet(["a", "b"]), util.OrderedMap([("k1", [1, 2]), ("k2", [])]), (7, "seven", float("inf")),
          Address("Main St", 12345), [Address("x", 1), Address(None, None)], [1.5, -0.0, 3.25], ["ab", ""]]
coll_b = [[], util.SortedSet(), util.OrderedMap(), (None, None, None), Address(None, 0), [], [0.0, 0.0, 0.0], ["", "z"]]
for v in (4, 5):
    add_rows("RESULT Rows collections, tuple, UDT, vector v%d" % v, v, coll_cols, [coll_a, coll_b, [None] * len(coll_cols)])

# No global table spec: a keyspace and table per column; a paging state; no rows.
mixed = [("ks_a", "t1", "id", N["int"]), ("ks_b", "t2", "name", N["text"])]
add_rows("RESULT Rows per-column table spec v4", 4, mixed, [[1, "one"], [2, None]], global_spec=False)
add_rows("RESULT Rows with paging state, zero rows v4", 4, mixed[:1], [], paging_state=b"\x00\x04\xde\xad\xbe\xef")
# Built by hand: the python driver's (Cython) row parser cannot read a result of no columns.
add("RESULT Rows zero columns zero rows v4", 4, "RESULT", rows_body(4, [], [], global_spec=False),
    {"kind": "rows", "columns": [], "rows": [], "pageState": None})
add_rows("RESULT Rows v5 new_metadata_id", 5, mixed[:1], [[42]], new_metadata_id=b"\x0b\xad\xca\xfe")

# Prepared: v4 (no result metadata id) and v5; bind markers with partition key indexes, and
# result metadata.
def prepared_body(version, qid, rmid, binds, pk, results, global_bind=True):
    b = io.BytesIO()
    write_int(b, 4)
    write_short(b, len(qid)); b.write(qid)
    if version >= 5:
        write_short(b, len(rmid)); b.write(rmid)
    write_int(b, 1 if global_bind and binds else 0)
    write_int(b, len(binds))
    write_int(b, len(pk))
    for i in pk:
        write_short(b, i)
    if global_bind and binds:
        write_string(b, binds[0][0]); write_string(b, binds[0][1])
    for c in binds:
        if not (global_bind and binds):
            write_string(b, c[0]); write_string(b, c[1])
        write_string(b, c[2]); b.write(c[3].option)
    metadata(b, results, 1 if results else 4, (results[0][0], results[0][1]) if results else None)
    return b.getvalue()

binds = [("frames_ks", "users", "id", N["uuid"]), ("frames_ks", "users", "bucket", N["int"]), ("frames_ks", "users", "tags", set_of(N["text"]))]
results = [("frames_ks", "users", "name", N["text"]), ("frames_ks", "users", "addr", address)]
for v, rmid in ((4, None), (5, b"\x5e\x5e\x00\x01")):
    for name, bs, pk, rs, gb in (("bind markers and result columns", binds, [1, 0], results, True),
                                 ("no bind markers, no result columns", [], [], [], True),
                                 ("per-column bind specs", binds[:2], [0], results[:1], False)):
        qid = bytes(range(16))
        body = prepared_body(v, qid, rmid, bs, pk, rs, gb)
        msg = decode(v, "RESULT", body)
        assert msg.kind == 4 and msg.query_id == qid
        assert msg.result_metadata_id == rmid
        got_binds = [column_json(c.keyspace_name, c.table_name, c.name, t) for c, (_, _, _, t) in zip(msg.bind_metadata, bs)]
        assert [c.type.cass_parameterized_type(full=True) for c in msg.bind_metadata] == [t.py.cass_parameterized_type(full=True) for *_, t in bs]
        got_results = [column_json(c[0], c[1], c[2], t) for c, (_, _, _, t) in zip(msg.column_metadata or [], rs)]
        add("RESULT Prepared %s v%d" % (name, v), v, "RESULT", body,
            {"kind": "prepared", "id": msg.query_id.hex(), "resultMetadataId": None if rmid is None else msg.result_metadata_id.hex(),
             "bindColumns": got_binds, "pkIndexes": list(msg.pk_indexes), "resultColumns": got_results})

def schema_change_fields(b, change, target, ks, name=None, args=None):
    write_string(b, change); write_string(b, target); write_string(b, ks)
    if name is not None:
        write_string(b, name)
    if args is not None:
        write_stringlist(b, args)

def schema_expect(ev):
    out = {"change": ev["change_type"], "target": ev["target_type"], "keyspace": ev["keyspace"]}
    for key in ("table", "type"):
        if key in ev:
            out["name"] = ev[key]
    for key in ("function", "aggregate"):
        if key in ev:
            out["name"] = ev[key].name
            out["argTypes"] = list(ev[key].argument_types)
    return out

SCHEMA_CHANGES = [("CREATED", "KEYSPACE", "frames_ks", None, None), ("UPDATED", "TABLE", "frames_ks", "users", None),
                  ("DROPPED", "TYPE", "frames_ks", "address", None),
                  ("CREATED", "FUNCTION", "frames_ks", "plus", ["int", "int"]),
                  ("CREATED", "AGGREGATE", "frames_ks", "average", ["double"])]
for v in (4, 5):
    for change in SCHEMA_CHANGES:
        body = body_of(lambda b: write_int(b, 5), lambda b: schema_change_fields(b, *change))
        msg = decode(v, "RESULT", body)
        add("RESULT Schema_change %s %s v%d" % (change[0], change[1], v), v, "RESULT", body,
            dict({"kind": "schemaChange"}, **schema_expect(msg.schema_change_event)))

# ---- ERROR ----------------------------------------------------------------------------------

def reasons(b, version, pairs):
    write_int(b, len(pairs))
    if version >= 5:
        for addr, code in pairs:
            packed = util.inet_pton(6 if ":" in addr else 2, addr) if False else None
            import socket
            raw = socket.inet_pton(socket.AF_INET6 if ":" in addr else socket.AF_INET, addr)
            write_byte(b, len(raw)); b.write(raw); write_short(b, code)

REASONS = [("10.0.0.1", 0x0001), ("2001:db8::7", 0x0003)]
ERRORS = [
    (0x0000, "ServerError", "boom", None),
    (0x000A, "ProtocolError", "Invalid or unsupported protocol version (5)", None),
    (0x0100, "AuthenticationError", "Provided username cassandra and/or password are incorrect", None),
    (0x1000, "Unavailable", "Cannot achieve consistency level QUORUM", ("cl", 4, "int", 3, "int", 1)),
    (0x1001, "Overloaded", "too busy", None),
    (0x1002, "IsBootstrapping", "joining", None),
    (0x1003, "TruncateError", "truncate failed", None),
    (0x1100, "WriteTimeout", "Operation timed out - received only 1 responses.", ("cl", 6, "int", 1, "int", 2, "str", "BATCH_LOG")),
    (0x1100, "WriteTimeout", "CAS operation timed out", ("cl", 9, "int", 0, "int", 2, "str", "CAS", "short", 7)),
    (0x1200, "ReadTimeout", "Operation timed out - received only 0 responses.", ("cl", 1, "int", 0, "int", 1, "byte", 1)),
    (0x1300, "ReadFailure", "Operation failed - received 1 responses and 2 failures", ("cl", 5, "int", 1, "int", 3, "reasons", REASONS, "byte", 0)),
    (0x1400, "FunctionFailure", "execution of 'ks.plus[int, int]' failed", ("str", "frames_ks", "str", "plus", "list", ["int", "int"])),
    (0x1500, "WriteFailure", "Operation failed - received 0 responses and 2 failures", ("cl", 2, "int", 0, "int", 2, "reasons", REASONS, "str", "UNLOGGED_BATCH")),
    (0x1600, "CdcWriteFailure", "cdc space full", None),
    (0x1700, "CasWriteUnknown", "CAS operation result is unknown", ("cl", 8, "int", 1, "int", 2)),
    (0x2000, "SyntaxError", "line 1:0 no viable alternative at input 'SELEC'", None),
    (0x2100, "Unauthorized", "User x has no SELECT permission", None),
    (0x2200, "Invalid", "unconfigured table t", None),
    (0x2300, "ConfigError", "bad config", None),
    (0x2400, "AlreadyExists", "Table frames_ks.users already exists", ("str", "frames_ks", "str", "users")),
    (0x2500, "Unprepared", "Prepared query with ID 00010203 not found", ("shortbytes", b"\x00\x01\x02\x03")),
]

def error_body(version, code, message, extra):
    b = io.BytesIO()
    write_int(b, code); write_string(b, message)
    items = list(extra or ())
    while items:
        kind, value = items.pop(0), items.pop(0)
        if kind in ("cl", "short"): write_short(b, value)
        elif kind == "int": write_int(b, value)
        elif kind == "byte": write_byte(b, value)
        elif kind == "str": write_string(b, value)
        elif kind == "list": write_stringlist(b, value)
        elif kind == "reasons": reasons(b, version, value)
        elif kind == "shortbytes": write_short(b, len(value)); b.write(value)
    return b.getvalue()

def error_expect(version, code, name, extra, msg):
    """Our decoded form (snake_case fields as the core reports them), from the python driver's."""
    out = {"code": msg.code, "name": name, "message": msg.message}
    info = msg.info or {}
    if code == 0x1000:
        out.update(consistency=CONSISTENCY[info["consistency"]], required=info["required_replicas"], alive=info["alive_replicas"])
    elif code in (0x1100, 0x1200, 0x1300, 0x1500):
        out.update(consistency=CONSISTENCY[info["consistency"]], received=info["received_responses"], block_for=info["required_responses"])
    if code == 0x1100:
        from cassandra.policies import WriteType
        out["write_type"] = WriteType.value_to_name[info["write_type"]]
        # Not read by the python driver: the CAS <contentions> short, present after writeType CAS.
        out["contentions"] = extra[-1] if extra[-2] == "short" else None
    if code == 0x1200:
        out["data_present"] = info["data_retrieved"]
    if code in (0x1300, 0x1500):
        code_map = info["error_code_map"] or {}
        out["reasons"] = [[a, c] for a, c in code_map.items()]
        out["num_failures"] = info["failures"]
    if code == 0x1300:
        out["data_present"] = info["data_retrieved"]
    if code == 0x1500:
        from cassandra.policies import WriteType
        out["write_type"] = WriteType.value_to_name[info["write_type"]]
    if code == 0x1400:
        out.update(keyspace=info["keyspace"], function=info["function"], arg_types=info["arg_types"])
    if code == 0x2400:
        out.update(keyspace=info["keyspace"], table=info["table"])
    if code == 0x2500:
        out["unprepared_id"] = info.hex()
    if code == 0x1700:
        # Not read by the python driver (it has no CasWriteUnknown class): from the input.
        out.update(consistency=CONSISTENCY[extra[1]], received=extra[3], block_for=extra[5])
    return out

for v in (4, 5):
    for code, name, message, extra in ERRORS:
        body = error_body(v, code, message, extra)
        msg = decode(v, "ERROR", body)
        assert msg.code == code and msg.message == message
        label = name + (" CAS" if extra and "CAS" in extra else "")
        add("ERROR %s (0x%04x) v%d" % (label, code, v), v, "ERROR", body, error_expect(v, code, name, extra, msg))

# ---- EVENT, SUPPORTED, handshake ------------------------------------------------------------

EVENTS = [("TOPOLOGY_CHANGE", "NEW_NODE", ("10.0.0.5", 9042)), ("TOPOLOGY_CHANGE", "REMOVED_NODE", ("2001:db8::5", 19042)),
          ("STATUS_CHANGE", "UP", ("127.0.0.2", 9042)), ("STATUS_CHANGE", "DOWN", ("::1", 9043))]
for v in (4, 5):
    for kind, change, addr in EVENTS:
        body = body_of(lambda b: write_string(b, kind), lambda b: write_string(b, change), lambda b: write_inet(b, addr))
        msg = decode(v, "EVENT", body, stream=-1)
        got = msg.event_args["address"]
        add("EVENT %s %s %s v%d" % (kind, change, addr[0], v), v, "EVENT", body,
            {"type": msg.event_type, "change": msg.event_args["change_type"], "address": "%s:%d" % got}, stream=-1)
    for change in SCHEMA_CHANGES:
        body = body_of(lambda b: write_string(b, "SCHEMA_CHANGE"), lambda b: schema_change_fields(b, *change))
        msg = decode(v, "EVENT", body, stream=-1)
        e = schema_expect(msg.event_args)
        add("EVENT SCHEMA_CHANGE %s %s v%d" % (change[0], change[1], v), v, "EVENT", body,
            {"type": "SCHEMA_CHANGE", "change": e["change"], "target": e["target"], "keyspace": e["keyspace"],
             "name": e.get("name"), "arg_types": e.get("argTypes", [])}, stream=-1)

options = {"CQL_VERSION": ["3.4.7"], "COMPRESSION": ["lz4", "snappy"], "PROTOCOL_VERSIONS": ["3/v3", "4/v4", "5/v5"]}
for v in (4, 5):
    body = body_of(lambda b: write_stringmultimap(b, options))
    msg = decode(v, "SUPPORTED", body, stream=0)
    got = dict(msg.options, CQL_VERSION=msg.cql_versions)
    add("SUPPORTED v%d" % v, v, "SUPPORTED", body, [[k, got[k]] for k in options], stream=0)
    add("READY v%d" % v, v, "READY", b"", {}, stream=0)
    body = body_of(lambda b: write_string(b, "org.apache.cassandra.auth.PasswordAuthenticator"))
    msg = decode(v, "AUTHENTICATE", body, stream=0)
    add("AUTHENTICATE v%d" % v, v, "AUTHENTICATE", body, {"authenticator": msg.authenticator}, stream=0)
    for token in (b"\x01challenge\x00", None):
        body = body_of(lambda b: write_value(b, token))
        msg = decode(v, "AUTH_CHALLENGE", body, stream=0)
        add("AUTH_CHALLENGE %s v%d" % ("null token" if token is None else "token", v), v, "AUTH_CHALLENGE", body,
            {"token": None if token is None else msg.challenge.hex()}, stream=0)
    for token in (b"final", None):
        body = body_of(lambda b: write_value(b, token))
        msg = decode(v, "AUTH_SUCCESS", body, stream=0)
        add("AUTH_SUCCESS %s v%d" % ("null token" if token is None else "token", v), v, "AUTH_SUCCESS", body,
            # The python driver reads a null [bytes] here as "": that one expectation is the input's.
            {"token": None if token is None else msg.token.encode("utf-8").hex()}, stream=0)

names = [x["name"] for x in vectors]
assert len(names) == len(set(names)), "duplicate vector names"
sys.stdout.write("[\n" + ",\n".join(json.dumps(x, ensure_ascii=False) for x in vectors) + "\n]\n")
