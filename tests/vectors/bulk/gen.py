#!/usr/bin/env python3
"""Writes tests/vectors/bulk/cases.json (format: README.md next to this file).

The expected value bytes are built here with Python's own encoders (struct, str.encode),
which share no code with the Rust bulk encoder under test. Offsets are found by searching
the input, not counted by hand.
"""
import json
import os
import struct

CASES = []
NULL = None
UNSET = "unset"


def i32(n):
    return struct.pack(">i", n).hex()


def i64(n):
    return struct.pack(">q", n).hex()


def f32(x):
    return struct.pack(">f", x).hex()


def text(s):
    return s.encode("utf-8").hex()


def boolean(b):
    return "01" if b else "00"


def element(hex_):
    """A [bytes] inside a collection, tuple or UDT: i32 length then the bytes (-1: null)."""
    if hex_ is None:
        return i32(-1)
    return i32(len(hex_) // 2) + hex_


def collection(*elements):
    return i32(len(elements)) + "".join(element(e) for e in elements)


def mapping(*pairs):
    """A map: the entry count, then each key and value as a [bytes]."""
    return i32(len(pairs)) + "".join(element(k) + element(v) for k, v in pairs)


def fields(*components):
    return "".join(element(c) for c in components)


def good(line, values, **extra):
    return {"line": line, "values": values, **extra}


def bad(line, reason, column=None, **extra):
    row = {"line": line, "bad": reason, **extra}
    if column is not None:
        row["column"] = column
    return row


def case(name, fmt, columns, input_, expect, **options):
    c = {"name": name, "format": fmt, "columns": columns}
    if isinstance(input_, bytes):
        c["input_hex"] = input_.hex()
    else:
        c["input"] = input_
    c.update(options)
    c["expect"] = expect
    CASES.append(c)


def at(haystack, needle):
    data = haystack if isinstance(haystack, bytes) else haystack.encode("utf-8")
    return data.index(needle if isinstance(needle, bytes) else needle.encode("utf-8"))


ID_NAME = [["id", "int"], ["name", "text"]]

# ------------------------------------------------------------------------------------------
# CSV

case("csv: quotes and doubled quotes", "csv", ID_NAME,
     'id,name\n1,"say ""hi"""\n2,"a,b"\n3,plain "inner" quotes\n',
     [good(2, [i32(1), text('say "hi"')]),
      good(3, [i32(2), text("a,b")]),
      good(4, [i32(3), text('plain "inner" quotes')])])

s = 'id,name\r\n1,"x\ny"\r\n2,"x\r\ny"\r\n3,"x\ry"\r\n'
case("csv: line ends inside quotes, CRLF records", "csv", ID_NAME, s,
     [good(2, [i32(1), text("x\ny")], offset=at(s, "1,"), end_offset=at(s, "2,") - 1, raw='1,"x\ny"'),
      good(4, [i32(2), text("x\r\ny")], offset=at(s, "2,")),
      good(6, [i32(3), text("x\ry")], offset=at(s, "3,"), end_offset=len(s) - 1)])

case("csv: CR-only line ends", "csv", ID_NAME, "id,name\r1,a\r\r2,b\r",
     [good(2, [i32(1), text("a")]), good(4, [i32(2), text("b")])])

case("csv: no newline after the last record", "csv", ID_NAME, "id,name\n1,a\n2,b",
     [good(2, [i32(1), text("a")]), good(3, [i32(2), text("b")], end_offset=len("id,name\n1,a\n2,b"))])

case("csv: blank lines are skipped", "csv", ID_NAME, "\nid,name\n\n\n1,a\n\n",
     [good(5, [i32(1), text("a")])])

case("csv: unquoted empty is unset by default, quoted empty is an empty string", "csv",
     [["id", "int"], ["a", "text"], ["b", "int"]],
     'id,a,b\n1,,\n2,"",\n3,"",""\n',
     [good(2, [i32(1), UNSET, UNSET]),
      good(3, [i32(2), "", UNSET]),
      bad(4, "column b: expected int", "b", raw='3,"",""')])

case("csv: unquoted empty is null without null_to_unset", "csv",
     [["id", "int"], ["a", "text"], ["b", "int"]],
     'id,a,b\n1,,\n2,"",\n',
     [good(2, [i32(1), NULL, NULL]),
      good(3, [i32(2), "", NULL])],
     null_to_unset=False)

case("csv: other null markers", "csv", [["id", "int"], ["a", "text"], ["b", "text"]],
     'id,a,b\n1,NULL,"NULL"\n2,,x\n',
     [good(2, [i32(1), UNSET, text("NULL")]),
      good(3, [i32(2), "", text("x")])],
     null_markers=["NULL"])

case("csv: unicode and emoji", "csv", ID_NAME,
     'id,name\n1,héllo 😀\n2,"日本,語"\n',
     [good(2, [i32(1), text("héllo 😀")]), good(3, [i32(2), text("日本,語")])])

case("csv: byte order mark at the start is skipped", "csv", ID_NAME,
     "\ufeffid,name\n1,a\n",
     [good(2, [i32(1), text("a")], offset=len("\ufeffid,name\n".encode()))])

case("csv: comments", "csv", ID_NAME,
     '# leading, "unbalanced\nid,name\n# middle\n1,a\n#end',
     [good(4, [i32(1), text("a")])],
     csv={"comment": "#"})

case("csv: TSV", "csv", ID_NAME, 'id\tname\n1\ta b, c\n2\t"x\ty"\n',
     [good(2, [i32(1), text("a b, c")]), good(3, [i32(2), text("x\ty")])],
     csv={"delimiter": "\t"})

case("csv: pipe and semicolon", "csv", ID_NAME, "id|name\n1|a;b\n",
     [good(2, [i32(1), text("a;b")])], csv={"delimiter": "|"})

case("csv: backslash escape", "csv", ID_NAME, 'id,name\n1,"a\\"b\\\\c"\n2,"d\\e"\n',
     [good(2, [i32(1), text('a"b\\c')]), good(3, [i32(2), text("d\\e")])],
     csv={"escape": "\\"})

case("csv: trimming", "csv", ID_NAME, 'id , name\n 1 ,  a b  \n2, " c "\n',
     [good(2, [i32(1), text("a b")]), good(3, [i32(2), text(" c ")])],
     csv={"trim": True})

case("csv: text keeps blanks without trimming", "csv", ID_NAME, "id,name\n 1 , a \n",
     [good(2, [i32(1), text(" a ")])])

case("csv: wrong field counts", "csv", ID_NAME, "id,name\n1\n2,a,x\n3,c\n",
     [bad(2, "expected 2 fields, found 1", raw="1"),
      bad(3, "expected 2 fields, found 3", raw="2,a,x"),
      good(4, [i32(3), text("c")])])

case("csv: type errors name the column", "csv",
     [["id", "int"], ["ts", "timestamp"], ["ok", "boolean"], ["tags", "list<int>"]],
     "id,ts,ok,tags\n"
     "x,2024-01-01T00:00:00Z,true,[]\n"
     "1,yesterday,true,[]\n"
     "2,2024-01-01T00:00:00Z,maybe,[]\n"
     "3,2024-01-01T00:00:00Z,no,\"[1, two]\"\n"
     "4,2024-01-01T00:00:00Z,no,\"[1, 2]\"\n",
     [bad(2, "column id: expected int, got 'x'", "id"),
      bad(3, "column ts: expected timestamp, got 'yesterday'", "ts"),
      bad(4, "column ok: expected boolean, got 'maybe'", "ok"),
      bad(5, "column tags: expected int, got 'two'", "tags"),
      good(6, [i32(4), i64(1704067200000), boolean(False), collection(i32(1), i32(2))])])

s = 'id,name\n1,a\n2,"open\n3,c\n'
case("csv: unterminated quote at end of input", "csv", ID_NAME, s,
     [good(2, [i32(1), text("a")]),
      bad(3, "unterminated quoted field 2", "name", raw='2,"open\n3,c\n', end_offset=len(s))])

case("csv: text after a closing quote", "csv", ID_NAME, 'id,name\n1,"a"b\n2,c\n',
     [bad(2, "unexpected text after the closing quote of field 2", "name"), good(3, [i32(2), text("c")])])

s = 'id,name\n1,short\n2,"this value is far too long\nfor the limit, and has a newline"\n3,ok\n'
case("csv: oversized record, then resynchronised", "csv", ID_NAME, s,
     [good(2, [i32(1), text("short")]),
      bad(3, "record exceeds 16 bytes", raw=s[at(s, "2,"):at(s, "2,") + 16],
          offset=at(s, "2,"), end_offset=at(s, "3,ok")),
      good(5, [i32(3), text("ok")], offset=at(s, "3,ok"))],
     csv={"max_record_bytes": 16})

case("csv: invalid UTF-8 names the field and byte", "csv", ID_NAME,
     b"id,name\n1,ab\xffc\n2,\xc3\xa9\n",
     [bad(2, "column name: invalid UTF-8 at byte 2 of the field", "name", raw_hex=b"1,ab\xffc".hex()),
      good(3, [i32(2), text("é")])])

case("csv: header matched case-insensitively, unknown ignored when asked", "csv", ID_NAME,
     "ID,extra,Name\n1,zzz,a\n",
     [good(2, [i32(1), text("a")])], ignore_unknown=True)

case("csv: an unknown header field is a configuration error", "csv", ID_NAME,
     "id,extra,name\n1,zzz,a\n", [], error="field 'extra' matches no column")

case("csv: a header that misses the partition key is a configuration error", "csv", ID_NAME,
     "name\na\n", [], error="partition key column id is not mapped", pk=[0])

case("csv: unmapped columns are unset, constants fill theirs", "csv",
     [["id", "int"], ["name", "text"], ["note", "text"], ["src", "text"]],
     "name,id\na,1\n",
     [good(2, [i32(1), text("a"), UNSET, text("csv")])],
     constants=[["src", "csv"]])

case("csv: by position without a header, skipping constant columns", "csv",
     [["id", "int"], ["src", "text"], ["name", "text"]],
     "1,a\n2,b\n3\n",
     [good(1, [i32(1), text("k"), text("a")]),
      good(2, [i32(2), text("k"), text("b")]),
      bad(3, "expected 2 fields, found 1")],
     csv={"header": False}, constants=[["src", "k"]])

case("csv: explicit positions without a header", "csv", ID_NAME + [["extra", "int"]],
     "a,1,x\nb,2\nc\n",
     [good(1, [i32(1), text("a"), UNSET]),
      good(2, [i32(2), text("b"), UNSET]),
      bad(3, "expected at least 2 fields, found 1")],
     csv={"header": False}, mapping="1=id, 0=name")

case("csv: explicit names with a header", "csv", ID_NAME,
     "key,label,other\n1,a,zzz\n",
     [good(2, [i32(1), text("a")])], mapping="key=id,label=name")

case("csv: null partition key is a bad row", "csv", ID_NAME,
     "id,name\n,a\n1,b\n",
     [bad(2, "partition key column id is null", "id"), good(3, [i32(1), text("b")])], pk=[0])

case("csv: composite partition key", "csv", [["a", "int"], ["b", "text"], ["c", "int"]],
     "a,b,c\n1,x,2\n", [good(2, [i32(1), text("x"), i32(2)])], pk=[1, 0])

case("csv: too many errors stops the load", "csv", ID_NAME,
     "id,name\nx,a\ny,b\n3,c\n",
     [bad(2, "column id", "id"), bad(3, "column id", "id")],
     max_errors=1, error="more than 1 bad rows")

# ------------------------------------------------------------------------------------------
# JSON Lines

NESTED = [["id", "int"], ["tags", "list<text>"], ["attrs", "map<text, int>"],
          ["addr", "udt<ks.addr>{street:text,zip:int}"], ["pair", "tuple<int, text>"],
          ["vec", "vector<float, 2>"], ["ok", "boolean"]]

case("jsonl: nested collections, UDTs, tuples, vectors", "jsonl", NESTED,
     '{"id": 1, "tags": ["a", "b\\"c"], "attrs": {"x": 1, "y": -2}, "addr": {"street": "Main", "zip": 12345},'
     ' "pair": [7, "seven"], "vec": [1.5, -2], "ok": true}\n'
     '{"id": 2, "tags": "[\'q\']", "attrs": "{\'k\': 3}", "addr": {"zip": null}, "ok": "no"}\n',
     [good(1, [i32(1), collection(text("a"), text('b"c')), mapping((text("x"), i32(1)), (text("y"), i32(-2))),
               fields(text("Main"), i32(12345)), fields(i32(7), text("seven")), f32(1.5) + f32(-2.0),
               boolean(True)]),
      good(2, [i32(2), collection(text("q")), mapping((text("k"), i32(3))), fields(None, None), UNSET, UNSET,
               boolean(False)])])

case("jsonl: nulls, missing keys, unknown keys", "jsonl", [["id", "int"], ["name", "text"], ["n", "bigint"]],
     '{"id": 1, "name": null, "unknown": {"deep": [1, 2]}}\n'
     '{"extra": true, "id": 2}\r\n'
     '\n'
     '{"ID": 3, "Name": "", "n": 9007199254740993}\n',
     [good(1, [i32(1), UNSET, UNSET]),
      good(2, [i32(2), UNSET, UNSET]),
      good(4, [i32(3), "", i64(9007199254740993)])])

case("jsonl: null binds null without null_to_unset; nested nulls stay null", "jsonl",
     [["id", "int"], ["name", "text"], ["pair", "tuple<int, text>"]],
     '{"id": 1, "name": null, "pair": [null, "x"]}\n',
     [good(1, [i32(1), NULL, fields(None, text("x"))])],
     null_to_unset=False)

s = ('{"id": 1}\n'
     'not json\n'
     '{"id": "x"}\n'
     '{"id": 2,}\n'
     '{"id": 3, "id": 4}\n'
     '{"id": 5} trailing\n'
     '{"id": 6, "name": 7}')
case("jsonl: bad lines", "jsonl", ID_NAME, s,
     [good(1, [i32(1), UNSET]),
      bad(2, "invalid JSON at byte 0", "@0", raw="not json"),
      bad(3, "column id: expected int, got 'x'", "id"),
      bad(4, "invalid JSON at byte 9: expected a key", "@9"),
      bad(5, "duplicate key", "id"),
      bad(6, "unexpected text after the object", "@10"),
      good(7, [i32(6), text("7")], end_offset=len(s))])

case("jsonl: invalid UTF-8 and oversized lines", "jsonl", ID_NAME,
     b'{"id": 1, "name": "\xff"}\n{"id": 2, "name": "this line is much too long"}\n{"id": 3}\n',
     [bad(1, "invalid UTF-8 at byte 19", "@19"),
      bad(2, "record exceeds 32 bytes"),
      good(3, [i32(3), UNSET])],
     jsonl={"max_record_bytes": 32})

case("jsonl: explicit key mapping", "jsonl", ID_NAME,
     '{"key": 1, "label": "a", "id": 99}\n',
     [good(1, [i32(1), text("a")])], mapping="key=id, label=name")

case("jsonl: missing partition key is a bad row", "jsonl", ID_NAME,
     '{"name": "a"}\n{"id": null}\n{"id": 1}\n',
     [bad(1, "partition key column id is unset", "id"),
      bad(2, "partition key column id is null", "id"),
      good(3, [i32(1), UNSET])], pk=[0])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json")
with open(out, "w", encoding="utf-8") as f:
    f.write("[\n")
    f.write(",\n".join(json.dumps(c, ensure_ascii=False) for c in CASES))
    f.write("\n]\n")
print(f"wrote {len(CASES)} cases to {out}")
