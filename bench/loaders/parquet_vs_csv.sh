#!/usr/bin/env bash
# Load throughput of the flights dataset as Parquet against the same data as CSV, with
# cqlwire's defaults (CSV told its null word), into KEYSPACE.flights (default parquet_bench, not
# bench: other loader runs use bench.flights) on the local node, RUNS
# alternating runs each (default 3): wall time, rows/s, client CPU (user + sys) and peak RSS
# from /usr/bin/time, and each load's content checked against the CSV (flights.py check).
#   bench/loaders/parquet_vs_csv.sh FLIGHTS_CSV [RUNS] [KEYSPACE]
# Needs python3 with pyarrow (PYTHON=/path/to/python) to write the Parquet file once.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CSV="$1"
RUNS="${2:-3}"
KEYSPACE="${3:-parquet_bench}"
PYTHON="${PYTHON:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PARQUET="$WORK/flights.parquet"
"$PYTHON" "$HERE/flights_parquet.py" "$CSV" "$PARQUET"
SCHEMA="$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import flights; print(flights.SCHEMA)' "$HERE")"
SCHEMA="${SCHEMA/bench.flights/$KEYSPACE.flights}"
"$ROOT/bin/cqlwire" query "CREATE KEYSPACE IF NOT EXISTS $KEYSPACE WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
"$ROOT/bin/cqlwire" query "$SCHEMA"
echo "input sizes: CSV $(stat -c %s "$CSV") bytes, Parquet $(stat -c %s "$PARQUET") bytes"

run() { # LABEL RUN ARGS...
  local label=$1 n=$2
  shift 2
  "$ROOT/bin/cqlwire" query "TRUNCATE $KEYSPACE.flights"
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$ROOT/bin/cqlwire" load "$@" --table "$KEYSPACE.flights" \
    --bad-dir "$WORK/bad" --quiet --json >"$WORK/out.json"
  read -r wall user sys rss <"$WORK/time"
  "$ROOT/bin/cqlwire" unload --table "$KEYSPACE.flights" --out "$WORK/content.csv" --overwrite --quiet
  local content
  content="$(python3 "$HERE/flights.py" check "$CSV" "$WORK/content.csv" 2>&1 || true)"
  python3 - "$label" "$n" "$wall" "$user" "$sys" "$rss" "$content" "$WORK/out.json" <<'PY'
import json, sys
label, n, wall, user, sys_, rss, content, out = sys.argv[1:]
summary = json.load(open(out))
rows = summary["rowsLoaded"]
print(f"{label:8} run {n}: {rows} rows, {float(wall):.2f} s, {rows / float(wall):,.0f} rows/s, "
      f"CPU {float(user) + float(sys_):.2f} s, peak RSS {int(rss) // 1024} MB, bad {summary['badRows']}; {content}")
PY
}

for n in $(seq 1 "$RUNS"); do
  run csv "$n" "$CSV" --null-value NA
  run parquet "$n" "$PARQUET"
done
