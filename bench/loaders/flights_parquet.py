#!/usr/bin/env python3
"""The flights dataset (flights.py) as Parquet, for the Parquet-vs-CSV load measurement
(parquet_vs_csv.sh): written by pyarrow from the pinned CSV, with the types bench.flights has
(int32, double, string, timestamp in ms adjusted to UTC), NA as null, snappy pages and row
groups of 65,536 rows. Needs pyarrow (pip install pyarrow).

  flights_parquet.py SOURCE_CSV OUT_PARQUET
"""
import sys

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from flights import NULL_WORD, ROWS, TYPES

ARROW = {"int": pa.int32(), "double": pa.float64(), "text": pa.string(), "timestamp": pa.timestamp("ms", tz="UTC")}


def main(source, out):
    table = pacsv.read_csv(source, convert_options=pacsv.ConvertOptions(
        column_types={name: ARROW[kind] for name, kind in TYPES.items()},
        null_values=[NULL_WORD, ""], strings_can_be_null=True))
    if table.num_rows != ROWS:
        sys.exit(f"{source}: {table.num_rows} rows, expected {ROWS}")
    pq.write_table(table, out, compression="snappy", row_group_size=65536)


if __name__ == "__main__":
    main(*sys.argv[1:])
