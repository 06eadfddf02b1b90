#!/usr/bin/env python3
"""Checks the content of a loaded table against its source file: both CSVs (the source, and
the table as `cqlwire unload` wrote it) are read row by row, each row's values are normalized
by their CQL type (numbers by value, blobs as bytes, timestamps to the millisecond, the null
word and empty fields as null) and hashed, keyed by the primary key. Rows missing, extra or
different are counted and one of each is named. Memory: one key and one 8-byte hash per row.

    digest.py check COLUMNS KEY NULL_WORD SOURCE UNLOADED
      COLUMNS: name:type,... (int, bigint, double, text, blob, timestamp); KEY: name,...
    e.g. digest.py check k:bigint,n:int,s:text k '' wide.csv unloaded.csv
"""
import csv
import datetime
import hashlib
import struct
import sys

csv.field_size_limit(1 << 30)


def normalizer(kind, null_word):
    def norm(text):
        if text == "" or (null_word and text == null_word):
            return b"\x00"
        if kind in ("int", "bigint"):
            return b"i" + str(int(text)).encode()
        if kind == "double":
            return b"d" + struct.pack(">d", float(text))
        if kind == "blob":
            return b"b" + bytes.fromhex(text[2:] if text.startswith("0x") else text)
        if kind == "timestamp":
            when = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
            return b"t" + str(round(when.timestamp() * 1000)).encode()
        return b"s" + text.encode()

    return norm


def rows_by_key(path, columns, key, null_word):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        missing = [name for name, _ in columns if name not in header]
        if missing:
            sys.exit(f"{path}: no column {missing}")
        at = [(header.index(name), normalizer(kind, null_word)) for name, kind in columns]
        key_at = [header.index(name) for name in key]
        table = {}
        duplicates = 0
        for record in reader:
            values = [norm(record[i]) for i, norm in at]
            digest = hashlib.blake2b(b"\x1f".join(values), digest_size=8).digest()
            k = tuple(record[i] for i in key_at)
            if k in table:
                duplicates += 1
            table[k] = digest
        return table, duplicates


def check(columns_text, key_text, null_word, source, unloaded):
    columns = [tuple(c.split(":", 1)) for c in columns_text.split(",")]
    key = key_text.split(",")
    want, dup_want = rows_by_key(source, columns, key, null_word)
    got, dup_got = rows_by_key(unloaded, columns, key, null_word)
    missing = [k for k in want if k not in got]
    differ = [k for k in want if k in got and got[k] != want[k]]
    extra = [k for k in got if k not in want]
    if missing or differ or extra or dup_got:
        parts = [f"{len(missing):,} missing", f"{len(differ):,} different", f"{len(extra):,} extra"]
        named = "; ".join(f"e.g. {what} {ks[0]}" for what, ks in (("missing", missing), ("different", differ), ("extra", extra)) if ks)
        sys.exit(f"content differs: {', '.join(parts)} of {len(want):,} rows" + (f"; {named}" if named else ""))
    note = f" (the source repeats {dup_want:,} keys)" if dup_want else ""
    print(f"content equal: {len(want):,} rows, every value{note}")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"check": check}[command](*args)
