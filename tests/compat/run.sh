#!/usr/bin/env bash
# The DataStax compatibility suite through the npm tarball, as a switching user gets it: `npm
# pack`, install into a fresh project offline, then run unchanged cassandra-driver-style code
# against the local Cassandra: the ESM cases (cases.mjs) on Node, Deno and Bun, and the
# CommonJS callback code (callbacks.cjs) on Node. Keyspace compat_pkg.
#
#   bash tests/compat/run.sh        (CQLWIRE_HOSTS=host:port to point elsewhere)
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
BIN="$ROOT/node_modules/.bin"
BUN="$ROOT/node_modules/@oven/bun-linux-x64/bin/bun"
HOST="${CQLWIRE_HOSTS:-127.0.0.1:9042}"
HOST="${HOST%%,*}"
KEYSPACE=compat_pkg

die() { printf 'compat: %s\n' "$*" >&2; exit 1; }
for f in dist/compat-node.js dist/compat-node.cjs dist/compat-deno.js dist/node.cjs; do
  [[ -e $ROOT/$f ]] || die "$f is missing: run 'make build' first"
done
[[ -x $BUN ]] || die "Bun is missing ($BUN): run 'npm ci'"
[[ -x $BIN/deno ]] || die "Deno is missing: run 'npm ci'"
timeout 3 bash -c "exec 3<>/dev/tcp/${HOST%:*}/${HOST##*:}" 2>/dev/null ||
  die "Cassandra is not reachable at $HOST (start it with scripts/cassandra start)"

work=$(mktemp -d "${TMPDIR:-/tmp}/cqlwire-compat.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$ROOT" && npm pack --silent --pack-destination "$work" >/dev/null) || die "npm pack failed"
tarball=$(compgen -G "$work/cqlwire-*.tgz" | head -n 1) || die "npm pack produced no tarball"
app="$work/app"
mkdir -p "$app"
echo '{ "name": "compat-consumer", "version": "1.0.0", "private": true }' >"$app/package.json"
(cd "$app" && npm install --offline --no-audit --no-fund --silent "$tarball" >"$work/install.out" 2>&1) ||
  { cat "$work/install.out"; die "npm install --offline of the tarball failed"; }
cp "$ROOT"/tests/compat/{cases.mjs,run.mjs,callbacks.cjs} "$ROOT/tests/exact.mjs" "$app/"

failed=()
run() {
  local name="$1"; shift
  echo "--- $name"
  if (cd "$app" && timeout 300 "$@"); then :; else failed+=("$name"); fi
}
run "node (ESM)" node run.mjs node "$HOST" "$KEYSPACE"
run "node (CommonJS callbacks)" node callbacks.cjs "$HOST" "$KEYSPACE"
run "deno (ESM)" "$BIN/deno" run -A --quiet run.mjs deno "$HOST" "$KEYSPACE"
run "bun (ESM)" "$BUN" run.mjs bun "$HOST" "$KEYSPACE"

if ((${#failed[@]} > 0)); then
  echo "compat: failed on: ${failed[*]}"
  exit 1
fi
echo "compat: all runtimes passed"
