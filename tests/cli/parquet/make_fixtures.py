"""Writes the Parquet fixtures of tests/cli/parquet_test.ts with pyarrow, an implementation
independent of the reader under test (hyparquet). Run from this directory:
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pyarrow numpy && /tmp/venv/bin/python make_fixtures.py
The files are committed; rerun only to change them (and the test's expectations with them)."""
import datetime as dt
import decimal
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

D = decimal.Decimal
I64_MIN, I64_MAX = -(2**63), 2**63 - 1

# Three rows with values and one (id 4) with every column null; several row groups.
types = pa.table({
    "id": pa.array([1, 2, 3, 4], pa.int32()),
    "b": pa.array([True, False, True, None]),
    "i8": pa.array([-128, 127, 0, None], pa.int8()),
    "i16": pa.array([-32768, 32767, 0, None], pa.int16()),
    "i32": pa.array([-(2**31), 2**31 - 1, 0, None], pa.int32()),
    "i64": pa.array([I64_MIN, I64_MAX, 0, None], pa.int64()),
    "u8": pa.array([0, 255, 1, None], pa.uint8()),
    "u16": pa.array([0, 65535, 1, None], pa.uint16()),
    "u32": pa.array([0, 2**32 - 1, 1, None], pa.uint32()),
    "u64": pa.array([0, 2**64 - 1, 2**63, None], pa.uint64()),
    "f16": pa.array(np.array([1.5, -0.0, 65504.0, 0], np.float16), pa.float16(), mask=np.array([False, False, False, True])),
    "f32": pa.array([float("nan"), -0.0, 0.1, None], pa.float32()),
    "f64": pa.array([float("-inf"), -0.0, 5e-324, None], pa.float64()),
    "dec": pa.array([D("-12345678901234567890.1234567890"), D("0.0000000001"), D("0E-10"), None], pa.decimal128(30, 10)),
    "d": pa.array([dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(1970, 1, 1), None], pa.date32()),
    "t_ms": pa.array([0, 86399999, 1, None], pa.time32("ms")),
    "t_us": pa.array([0, 86399999999, 1, None], pa.time64("us")),
    "t_ns": pa.array([0, 86399999999999, 1, None], pa.time64("ns")),
    "ts_ms": pa.array([-62135596800000, 253402300799999, 1, None], pa.timestamp("ms", tz="UTC")),
    "ts_us": pa.array([1700000000123000, -1000, 0, None], pa.timestamp("us", tz="UTC")),
    "ts_ns": pa.array([1700000000123000000, -1000000, 0, None], pa.timestamp("ns", tz="UTC")),
    "ts_local": pa.array([1700000000123, 0, 1, None], pa.timestamp("ms")),
    "s": pa.array(["héllo \"q\" \\ \n\t", "", "日本", None], pa.string()),
    "j": pa.array(['{"a": [1, 2]}', "null", "3", None], pa.json_(pa.string())),
    "u": pa.array([uuid.UUID(int=1).bytes, uuid.UUID("123e4567-e89b-12d3-a456-426614174000").bytes, uuid.UUID(int=2**128 - 1).bytes, None], pa.uuid()),
    "bl": pa.array([b"\x00\xff", b"", b"\x22\x5c", None], pa.binary()),
    "fx": pa.array([b"\x00\x01\x02\x03", b"\xff\xff\xff\xff", b"abcd", None], pa.binary(4)),
    "li": pa.array([[I64_MIN, I64_MAX], [], [0], None], pa.list_(pa.int64())),
    "ls": pa.array([["a", "b,c"], ["é"], [], None], pa.list_(pa.string())),
    "ld": pa.array([[float("nan"), -0.0, float("inf")], [1.5], [], None], pa.list_(pa.float64())),
})
pq.write_table(types, "types.parquet", compression="zstd", row_group_size=2)

# The legacy encodings: INT96 timestamps, decimals stored as INT32/INT64, gzip pages.
legacy = pa.table({
    "id": pa.array([1, 2], pa.int32()),
    "ts96": pa.array([1700000000123000000, -62135596800000000], pa.timestamp("ns")),
    "d32": pa.array([D("-1234567.89"), D("0.01")], pa.decimal128(9, 2)),
    "d64": pa.array([D("-12345678901234.5678"), D("1")], pa.decimal128(18, 4)),
})
pq.write_table(legacy, "legacy.parquet", compression="gzip", use_deprecated_int96_timestamps=True,
               store_decimal_as_integer=True)

# Rows the core refuses, one per reason, among good rows, in row groups of 3 (snappy).
bad = pa.table({
    "id": pa.array(list(range(10)), pa.int32()),
    "n": pa.array([1, 2, 2**31, 4, 5, 6, 7, 8, 9, 10], pa.int64()),
    "ts": pa.array([0, 0, 0, 0, 1500, 0, 0, 0, 0, 0], pa.timestamp("us", tz="UTC")),
    "s": pa.array([b"ok", b"ok", b"ok", b"ok", b"ok", b"ok", b"ok", b"\xff\xfe", b"ok", b"ok"], pa.binary()),
})
pq.write_table(bad, "bad.parquet", compression="snappy", row_group_size=3)
