#!/usr/bin/env python3
"""Writes a CSV with partition locality, shaped like real exports: ROWS rows of readings
(station text, day date | hour int, minute int | value double, note text, at timestamp),
grouped by the composite partition key (station, day) with ~240 rows per partition, in key
order, the word NA for missing values and ISO-8601 timestamps. Deterministic per ROWS."""
import datetime
import random
import sys

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS bench.local (station text, day date, hour int, minute int, value double, "
    "note text, at timestamp, PRIMARY KEY ((station, day), hour, minute))"
)
COLUMNS = "station,day,hour,minute,value,note,at"
ROWS_PER_PARTITION = 240


def main() -> None:
    rows, path = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(rows)
    start = datetime.date(2024, 1, 1)
    with open(path, "w", newline="") as out:
        out.write(COLUMNS + "\n")
        for i in range(rows):
            partition, within = divmod(i, ROWS_PER_PARTITION)
            station = f"ST{partition % 97:03d}"
            day = start + datetime.timedelta(days=partition // 97)
            hour, minute = divmod(within * 6, 60)
            value = "NA" if rng.random() < 0.05 else f"{rng.uniform(-40, 50):.3f}"
            note = "NA" if rng.random() < 0.5 else rng.choice(["ok", "calibrated", "gust", "rain, light"])
            if "," in note:
                note = f'"{note}"'
            at = f"{day.isoformat()}T{hour:02d}:{minute:02d}:00Z"
            out.write(f"{station},{day.isoformat()},{hour},{minute},{value},{note},{at}\n")


if __name__ == "__main__":
    main()
