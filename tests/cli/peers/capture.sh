#!/usr/bin/env bash
# Captures what cqlsh 6.2 and DSBulk 1.10 print for the tables of tests/cli/peer_tables.ts into
# tests/cli/data/ (cqlsh_query.txt, cqlsh_errors.txt, dsbulk_count.txt, dsbulk_unload_v.csv).
# `make test` installs neither peer, so query_diff_test.ts and count_diff_test.ts compare
# cqlwire with these files; rerun this (then `git diff tests/cli/data`) after changing the
# tables or to check against a newer peer. Needs the local Cassandra on 127.0.0.1:9042, cqlsh
# (bench/run installs it into bench/.cache/venv) and DSBulk (bench/run assembles it into
# bench/.cache/dsbulk/lib).
#
# DSBulk's `count` workflow is not on Maven Central, so bench/run's DSBulk has only load and
# unload. This compiles its two classes from the DSBulk repository's tag 1.10.0 against those
# jars: DSBULK_SRC=/path/to/a/checkout/of/github.com/datastax/dsbulk (default: ../dsbulk).
#
# DSBulk 1.10's Java driver cannot parse `vector` columns: one anywhere on the node makes it
# drop the whole schema ("Keyspace ... does not exist"), so its schema refresh is limited to
# the keyspace compared.
#
# `capture.sh interop` captures only the files of tests/cli/interop_peers_test.ts (no count
# workflow needed): DSBulk's CSV and JSON unload and cqlsh's COPY TO of the table of every CQL
# type in data/interop_setup.cql, as interop_dsbulk.csv, interop_dsbulk.json, interop_cqlsh.csv.
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../../.." && pwd)"
cd "$ROOT"
CACHE="${CQLWIRE_BENCH_CACHE:-$ROOT/bench/.cache}"
CQLSH="${CQLSH:-$CACHE/venv/bin/cqlsh}"
LIB="$CACHE/dsbulk/lib"
DSBULK_SRC="${DSBULK_SRC:-$ROOT/../dsbulk}"
DATA="$ROOT/tests/cli/data"
KS=cliquery_diff
export TZ=UTC

[[ -x $CQLSH ]] || { echo "capture: no cqlsh at $CQLSH (bench/run installs it)" >&2; exit 1; }
[[ -f $LIB/dsbulk-runner-1.10.0.jar ]] || { echo "capture: no DSBulk in $LIB (bench/run assembles it)" >&2; exit 1; }

# The peers' unloads of interop_cli.src. DSBulk with its defaults (CSV: `\` escapes, base64
# blobs, JSON collections); cqlsh with every digit of floats and doubles (its defaults, 5 and
# 12 digits, lose them), one process (its order then stays the same).
capture_interop() {
  local logs
  logs="$(mktemp -d)"
  bin/cqlwire query -f "$DATA/interop_setup.cql" >/dev/null
  dsbulk_interop() {
    java -cp "$LIB/*" com.datastax.oss.dsbulk.runner.DataStaxBulkLoader "$@" -h 127.0.0.1 --log.directory "$logs" \
      --datastax-java-driver.advanced.metadata.schema.refreshed-keyspaces '["interop_cli"]' >/dev/null 2>&1
  }
  dsbulk_interop unload -k interop_cli -t src -url "$logs/csv"
  { head -n 1 "$logs/csv/output-000001.csv"; tail -n +2 -q "$logs"/csv/output-*.csv; } >"$DATA/interop_dsbulk.csv"
  dsbulk_interop unload -c json -k interop_cli -t src -url "$logs/json"
  cat "$logs"/json/output-*.json >"$DATA/interop_dsbulk.json"
  rm -f "$DATA/interop_cqlsh.csv"
  "$CQLSH" 127.0.0.1 9042 -e "COPY interop_cli.src TO '$DATA/interop_cqlsh.csv' WITH HEADER = true AND FLOATPRECISION = 9 AND DOUBLEPRECISION = 17 AND NUMPROCESSES = 1" >/dev/null 2>&1
  rm -rf "$logs"
  echo "captured into $DATA: interop_dsbulk.csv interop_dsbulk.json interop_cqlsh.csv"
}
if [[ ${1:-} == interop ]]; then
  capture_interop
  exit 0
fi

COUNT_JAR="$CACHE/dsbulk/count/dsbulk-workflow-count-1.10.0.jar"
if [[ ! -f $COUNT_JAR ]]; then
  work="$(mktemp -d)"
  mkdir -p "$work/classes/META-INF/services" "$(dirname "$COUNT_JAR")"
  for f in CountWorkflow CountWorkflowProvider; do
    git -C "$DSBULK_SRC" show "1.10.0:workflow/count/src/main/java/com/datastax/oss/dsbulk/workflow/count/$f.java" >"$work/$f.java"
  done
  git -C "$DSBULK_SRC" show 1.10.0:workflow/count/src/main/resources/META-INF/services/com.datastax.oss.dsbulk.workflow.api.WorkflowProvider \
    >"$work/classes/META-INF/services/com.datastax.oss.dsbulk.workflow.api.WorkflowProvider"
  javac -nowarn -cp "$LIB/*" -d "$work/classes" "$work"/*.java
  (cd "$work/classes" && jar cf "$COUNT_JAR" .)
  rm -rf "$work"
fi
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
dsbulk() {
  java -cp "$LIB/*:$COUNT_JAR" com.datastax.oss.dsbulk.runner.DataStaxBulkLoader "$@" -h 127.0.0.1 \
    --log.directory "$LOGS" --datastax-java-driver.advanced.metadata.schema.refreshed-keyspaces "[\"$KS\"]"
}
not_warning() { grep -v '^WARNING: cqlsh was built against' || true; }

node_modules/.bin/deno run -A tests/cli/peer_tables.ts

"$CQLSH" 127.0.0.1 9042 -f "$DATA/query_diff_selects.cql" 2>&1 | not_warning >"$DATA/cqlsh_query.txt"
code=0
"$CQLSH" 127.0.0.1 9042 -f "$DATA/query_diff_errors.cql" >/dev/null 2>"$LOGS/errors" || code=$?
{ not_warning <"$LOGS/errors"; echo "exit $code"; } >"$DATA/cqlsh_errors.txt"

{
  for table in many wide empty statics comp; do
    stats=global,hosts,ranges
    [[ $table == many || $table == empty ]] || stats+=,partitions
    echo "== dsbulk count -k $KS -t $table -stats $stats"
    dsbulk count -k "$KS" -t "$table" -stats "$stats" 2>/dev/null
  done
  echo "== dsbulk count -query 'SELECT p, c FROM $KS.wide WHERE p IN (3, 7) AND c >= 10'"
  dsbulk count -query "SELECT p, c FROM $KS.wide WHERE p IN (3, 7) AND c >= 10" -stats global 2>/dev/null
} >"$DATA/dsbulk_count.txt"

rm -rf "$LOGS/unload"
dsbulk unload -k "$KS" -t v -url "$LOGS/unload" >/dev/null 2>&1
# One file per range group, in no fixed order (the test matches rows by id); the header once.
{ head -n 1 "$LOGS/unload/output-000001.csv"; tail -n +2 -q "$LOGS"/unload/output-*.csv; } >"$DATA/dsbulk_unload_v.csv"
echo "captured into $DATA: cqlsh_query.txt cqlsh_errors.txt dsbulk_count.txt dsbulk_unload_v.csv"
capture_interop
