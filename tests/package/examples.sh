#!/usr/bin/env bash
# Runs the README's runnable examples against the local Cassandra: examples/node (Node),
# examples/deno (Deno) and examples/worker (workerd), each importing "cqlwire", which inside
# the repository resolves to the built bundle in dist/ through package.json's exports.
#
#   bash tests/package/examples.sh        (CQLWIRE_HOSTS=host:port to point elsewhere)
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
BIN="$ROOT/node_modules/.bin"
HOST="${CQLWIRE_HOSTS:-127.0.0.1:9042}"
HOST="${HOST%%,*}"
cd "$ROOT"

failures=0
pass() { printf 'ok    %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }
die() { printf 'examples: %s\n' "$*" >&2; exit 1; }

for f in dist/node.js dist/deno.js dist/workerd.js dist/wasm/pkg/cqlwire_wasm_bg.wasm; do
  [[ -e $f ]] || die "$f is missing: run 'make build' first"
done
timeout 3 bash -c "exec 3<>/dev/tcp/${HOST%:*}/${HOST##*:}" 2>/dev/null ||
  die "Cassandra is not reachable at $HOST (start it with scripts/cassandra start)"

# An example passes when it exits 0 and prints what it is meant to print.
run_example() {
  local label=$1 expect=$2 started=$SECONDS out
  shift 2
  if out=$(timeout 60 "$@" 2>&1) && grep -qE "$expect" <<<"$out" && grep -q "server error, as expected" <<<"$out"; then
    pass "$label ($((SECONDS - started)) s)"
  else
    printf '%s\n' "$out" | tail -n 20
    fail "$label"
  fi
}

run_example "examples/node/main.mjs on Node $(node --version)" "read 5 visits in pages of 2" \
  node examples/node/main.mjs "$HOST"
run_example "examples/deno/main.ts on Deno" "page 3: " \
  "$BIN/deno" run --allow-net --allow-read examples/deno/main.ts "$HOST"

# The Worker: workerd on a port the kernel picks, reported through --control-fd.
work=$(mktemp -d "${TMPDIR:-/tmp}/cqlwire-examples.XXXXXX")
workerd_pid=""
cleanup() {
  if [[ -n $workerd_pid ]]; then kill "$workerd_pid" 2>/dev/null || true; wait "$workerd_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
started=$SECONDS
"$BIN/workerd" serve examples/worker/config.capnp --socket-addr http=127.0.0.1:0 --control-fd 3 \
  3>"$work/control" >"$work/workerd.log" 2>&1 &
workerd_pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/.*"event":"listen","socket":"http","port":\([0-9]*\).*/\1/p' "$work/control")
  [[ -n $port ]] && break
  kill -0 "$workerd_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $port ]]; then
  cat "$work/workerd.log"
  fail "examples/worker: workerd did not start listening"
else
  body=$(node --input-type=module -e '
    const r = await fetch(process.argv[1], { signal: AbortSignal.timeout(60000) });
    console.log(r.status, await r.text());' "http://127.0.0.1:$port/?hosts=$HOST" 2>&1 || true)
  if [[ $body =~ ^200\ \{\"release\":\"5\.0\.[0-9]+\".*\"system_schema\" ]]; then
    pass "examples/worker on workerd: ${body:4:120}... ($((SECONDS - started)) s)"
  else
    cat "$work/workerd.log"
    fail "examples/worker on workerd answered: $body"
  fi
fi

if ((failures > 0)); then
  echo "examples: $failures example(s) failed"
  exit 1
fi
echo "examples: all passed"
