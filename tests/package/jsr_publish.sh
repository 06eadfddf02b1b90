#!/usr/bin/env bash
# The JSR package as users get it: `deno publish --dry-run` must succeed without warnings and
# list exactly the modules the exports load plus README, LICENSE and deno.json; then those files,
# served over HTTP (a remote import, as from https://jsr.io), are imported by a fresh Deno with
# no config, import map or node_modules, and query the local Cassandra (jsr_publish.ts).
#
#   bash tests/package/jsr_publish.sh        (CQLWIRE_HOSTS=host:port to point elsewhere)
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
HOST="${CQLWIRE_HOSTS:-127.0.0.1:9042}"
HOST="${HOST%%,*}"

die() { printf 'jsr_publish: %s\n' "$*" >&2; exit 1; }
[[ -e $ROOT/driver/wasm/pkg/cqlwire_wasm_bg.wasm ]] || die "driver/wasm/pkg is missing: run 'make build' first"
timeout 3 bash -c "exec 3<>/dev/tcp/${HOST%:*}/${HOST##*:}" 2>/dev/null ||
  die "Cassandra is not reachable at $HOST (start it with scripts/cassandra start)"

work=$(mktemp -d "${TMPDIR:-/tmp}/cqlwire-jsr.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$ROOT"
"$ROOT/node_modules/.bin/deno" run -A --quiet tests/package/jsr_publish.ts "$work" "$HOST"
