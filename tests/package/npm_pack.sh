#!/usr/bin/env bash
# The npm package as users get it: `npm pack` the repository, install the tarball into a fresh
# project with no network, then import `cqlwire` from Node (the "node" condition) and from Deno
# (the "deno" condition) and query the local Cassandra, and type-check a TypeScript consumer
# against the shipped declarations. Reports the tarball and gzipped WASM sizes.
#
#   bash tests/package/npm_pack.sh        (CQLWIRE_HOSTS=host:port to point elsewhere)
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
BIN="$ROOT/node_modules/.bin"
HOST="${CQLWIRE_HOSTS:-127.0.0.1:9042}"
HOST="${HOST%%,*}"
# 300 KB: the target a resolved issue set (bench/report.py checks the same gz <= 300 * 1024).
# The module had grown to 358,038 bytes gzipped under a 376 KiB budget; the branches wasmsize
# and wasmsize2 brought it to ~293 KB (no sort instantiations per type, no constant CRC tables;
# bench/MEMORY.md section 5), and it grew back past 300 KB once unnoticed while this budget
# still said 376 KiB. At 300 KB a regression fails here, in `make test`: shrink cold code then,
# not the optimisation level (-Oz, opt-level "s" cost CPU on the hot path).
readonly WASM_GZIP_BUDGET=$((300 * 1024))

failures=0
pass() { printf 'ok    %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }
die() { printf 'npm_pack: %s\n' "$*" >&2; exit 1; }

for f in dist/node.js dist/deno.js dist/workerd.js dist/wasm/pkg/cqlwire_wasm_bg.wasm dist/types; do
  [[ -e $ROOT/$f ]] || die "$f is missing: run 'make build' first"
done
timeout 3 bash -c "exec 3<>/dev/tcp/${HOST%:*}/${HOST##*:}" 2>/dev/null ||
  die "Cassandra is not reachable at $HOST (start it with scripts/cassandra start)"

work=$(mktemp -d "${TMPDIR:-/tmp}/cqlwire-pack.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- pack ------------------------------------------------------------------------------
started=$SECONDS
(cd "$ROOT" && npm pack --silent --pack-destination "$work" >"$work/pack.out" 2>"$work/pack.err") ||
  { cat "$work/pack.err" >&2; die "npm pack failed"; }
tarball=$(compgen -G "$work/cqlwire-*.tgz" | head -n 1) || die "npm pack produced no cqlwire-*.tgz"
tar -tzf "$tarball" | sed 's|^package/||' | sort >"$work/contents"
tarball_bytes=$(stat -c %s "$tarball")
pass "npm pack: $(basename "$tarball"), $tarball_bytes bytes, $(wc -l <"$work/contents") files ($((SECONDS - started)) s)"

for f in package.json README.md LICENSE dist/node.js dist/deno.js dist/workerd.js dist/wasm/pkg/cqlwire_wasm_bg.wasm dist/types/driver/mod.d.ts; do
  if grep -qxF "$f" "$work/contents"; then pass "tarball contains $f"; else fail "tarball lacks $f"; fi
done
unexpected=$(grep -vE '^(package\.json|README\.md|LICENSE|dist/.*)$' "$work/contents" || true)
if [[ -z $unexpected ]]; then pass "tarball holds only package.json, README, LICENSE and dist/"; else fail "tarball also holds: $(echo $unexpected)"; fi

wasm_bytes=$(tar -xzOf "$tarball" package/dist/wasm/pkg/cqlwire_wasm_bg.wasm | wc -c)
wasm_gzip=$(tar -xzOf "$tarball" package/dist/wasm/pkg/cqlwire_wasm_bg.wasm | gzip -9c | wc -c)
if ((wasm_gzip <= WASM_GZIP_BUDGET)); then
  pass "WASM: $wasm_bytes bytes, $wasm_gzip gzipped (budget $WASM_GZIP_BUDGET)"
else
  fail "WASM: $wasm_gzip bytes gzipped exceeds the $WASM_GZIP_BUDGET budget ($wasm_bytes raw)"
fi

# --- install into a fresh project, offline: the package has no runtime dependencies ------
app="$work/app"
mkdir -p "$app"
cat >"$app/package.json" <<'EOF'
{ "name": "cqlwire-consumer", "version": "1.0.0", "private": true, "type": "module" }
EOF
started=$SECONDS
if (cd "$app" && npm install --offline --no-audit --no-fund --silent "$tarball" >"$work/install.out" 2>&1); then
  pass "npm install --offline of the tarball ($((SECONDS - started)) s)"
else
  cat "$work/install.out"
  fail "npm install --offline of the tarball"
fi
installed_deps=$(find "$app/node_modules" -mindepth 1 -maxdepth 1 ! -name cqlwire ! -name '.*' | wc -l)
if ((installed_deps == 0)); then pass "no runtime dependencies were installed beside cqlwire"; else fail "$installed_deps extra packages were installed"; fi

# --- Node: the "node" condition ---------------------------------------------------------
cat >"$app/query.mjs" <<'EOF'
import { Client, ResponseError, types } from "cqlwire";
const [host] = process.argv.slice(2);
const client = new Client({ contactPoints: [host], localDataCenter: "datacenter1" });
try {
  const rs = await client.execute("SELECT release_version FROM system.local WHERE key = ?", ["local"], { prepare: true, consistency: types.consistencies.one });
  const release = rs.first()?.release_version;
  if (!/^5\.0\./.test(String(release))) throw new Error(`unexpected release ${release}`);
  const e = await client.execute("SELEC 1").catch((x) => x);
  if (!(e instanceof ResponseError)) throw new Error(`expected a ResponseError, got ${e}`);
  console.log(`${release} ${import.meta.resolve("cqlwire")}`);
} finally {
  await client.shutdown();
}
EOF
started=$SECONDS
if out=$(cd "$app" && timeout 60 node query.mjs "$HOST" 2>&1) && [[ $out == 5.0.*/node_modules/cqlwire/dist/node.js ]]; then
  pass "Node $(node --version) imports cqlwire (resolved to dist/node.js) and queries $HOST: release ${out%% *} ($((SECONDS - started)) s)"
else
  fail "Node import and query: $out"
fi

# --- Deno: the "deno" condition, from the same node_modules -----------------------------
started=$SECONDS
if out=$(cd "$app" && timeout 60 "$BIN/deno" run -A --quiet query.mjs "$HOST" 2>&1) && [[ $out == 5.0.*/node_modules/cqlwire/dist/deno.js ]]; then
  pass "Deno $("$BIN/deno" --version | head -n 1 | cut -d' ' -f2) imports cqlwire (resolved to dist/deno.js) and queries $HOST ($((SECONDS - started)) s)"
else
  fail "Deno import and query: $out"
fi
# Deno 2.5 (LTS) has no source phase import: dist/deno.js reads its .wasm, with that one
# read permission and no more (README, tests/deno_versions/).
started=$SECONDS
lts_wasm="$app/node_modules/cqlwire/dist/wasm/pkg/cqlwire_wasm_bg.wasm"
if out=$(cd "$app" && timeout 60 "$ROOT/node_modules/deno-2.5/deno" run --quiet --no-lock "--allow-net=$HOST" "--allow-read=$lts_wasm" query.mjs "$HOST" 2>&1) &&
  [[ $out == 5.0.*/node_modules/cqlwire/dist/deno.js ]]; then
  pass "Deno $("$ROOT/node_modules/deno-2.5/deno" --version | head -n 1 | cut -d' ' -f2) (LTS) imports cqlwire (dist/deno.js) with --allow-read of its .wasm only and queries $HOST ($((SECONDS - started)) s)"
else
  fail "Deno 2.5 LTS import and query: $out"
fi

# --- the workerd condition resolves to the Worker bundle --------------------------------
if out=$(cd "$app" && node --conditions=workerd --input-type=module -e 'console.log(import.meta.resolve("cqlwire"))' 2>&1) &&
  [[ $out == */node_modules/cqlwire/dist/workerd.js ]]; then
  pass "the workerd condition resolves to dist/workerd.js"
else
  fail "the workerd condition resolves to: $out"
fi

# --- TypeScript: the declarations resolve and describe the API --------------------------
cat >"$app/consumer.ts" <<'EOF'
import { Client, NoHostAvailableError, ResponseError, ResultSet, types } from "cqlwire";
import type { ClientOptions, ExecuteOptions, Row } from "cqlwire";
import { types as compatTypes } from "cqlwire/compat";

const options: ClientOptions = { contactPoints: ["127.0.0.1:9042"], localDataCenter: "datacenter1", tls: { rejectUnauthorized: true } };
const client: Client = new Client(options);
const execOptions: ExecuteOptions = { prepare: true, pageSize: 100, consistency: types.consistencies.localQuorum };

export async function firstRelease(): Promise<string | null> {
  const rs: ResultSet<Row> = await client.execute("SELECT release_version FROM system.local", [], execOptions);
  const pageState: string | null = rs.pageState;
  void pageState;
  for await (const row of client.stream("SELECT * FROM system.peers")) void row;
  return (rs.first()?.release_version as string | undefined) ?? null;
}

export function describe(e: unknown): string {
  if (e instanceof ResponseError) return `${e.codeName} ${e.code}`;
  if (e instanceof NoHostAvailableError) return Object.keys(e.innerErrors).join(",");
  return String(e);
}

// The two statics the compat layer adds to Long, as DataStax's driver does: a CQL bigint's 8 bytes.
export function longRoundTrip(bytes: Uint8Array): Uint8Array {
  const long = compatTypes.Long.fromBuffer(bytes);
  return compatTypes.Long.toBuffer(long.add(1));
}

// Misuse must not type-check, or the declarations are hollow.
// @ts-expect-error contactPoints must be an array
new Client({ contactPoints: "127.0.0.1" });
// @ts-expect-error no such option
client.execute("SELECT 1", [], { pageSise: 10 });
// @ts-expect-error toBuffer takes a Long, not a number
compatTypes.Long.toBuffer(1);
EOF
cat >"$app/tsconfig.json" <<'EOF'
{ "compilerOptions": { "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "strict": true, "noEmit": true, "skipLibCheck": false, "types": [] }, "files": ["consumer.ts"] }
EOF
started=$SECONDS
if out=$(cd "$app" && "$BIN/tsc" -p tsconfig.json 2>&1); then
  pass "tsc $("$BIN/tsc" --version | cut -d' ' -f2) --noEmit on a TypeScript consumer of cqlwire's declarations ($((SECONDS - started)) s)"
else
  printf '%s\n' "$out" | head -n 30
  fail "tsc on a TypeScript consumer of cqlwire's declarations"
fi

# --- DataStax's TypeScript API tests against cqlwire/compat's declarations ----------------
# tests/package/datastax_types/ (README there): code that compiles against cassandra-driver's
# index.d.ts must compile against the compat entry's. One tsc program checks each file twice:
# as vendored (importing "cqlwire/compat", the tarball's declarations) and with the import
# pointed at the installed cassandra-driver (proves the files themselves are right).
dt="$app/datastax_types"
mkdir -p "$dt/compat" "$dt/datastax"
cp "$ROOT"/tests/package/datastax_types/*.ts "$dt/compat/"
for f in "$dt"/compat/*.ts; do
  sed 's#from "cqlwire/compat";#from "cassandra-driver";#' "$f" >"$dt/datastax/$(basename "$f")"
done
cat >"$dt/tsconfig.json" <<EOF
{ "compilerOptions": { "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "strict": true, "noEmit": true,
    "skipLibCheck": true, "typeRoots": ["$ROOT/node_modules/@types"], "types": ["node"],
    "paths": { "cassandra-driver": ["$ROOT/node_modules/cassandra-driver/index.d.ts"] } },
  "include": ["compat/*.ts", "datastax/*.ts"] }
EOF
started=$SECONDS
vendored=$(find "$dt/compat" -name '*.ts' | wc -l)
if out=$(cd "$dt" && "$BIN/tsc" -p tsconfig.json 2>&1); then
  pass "tsc: DataStax's TypeScript API tests ($vendored files) compile against cqlwire/compat's declarations as against cassandra-driver's ($((SECONDS - started)) s)"
else
  printf '%s\n' "$out" | head -n 40
  if grep -q '^datastax/' <<<"$out"; then fail "tsc: tests/package/datastax_types/ do not compile against cassandra-driver's own declarations"; fi
  if grep -q '^compat/' <<<"$out"; then fail "tsc: cqlwire/compat's declarations refuse code that compiles against cassandra-driver's ($(grep -c '^compat/.*error TS' <<<"$out") errors)"; fi
  grep -qE '^(compat|datastax)/' <<<"$out" || fail "tsc on tests/package/datastax_types/"
fi

started=$SECONDS
if out=$(cd "$app" && "$BIN/deno" check --quiet consumer.ts 2>&1); then
  pass "deno check on the same consumer (npm package types through the \"types\" export) ($((SECONDS - started)) s)"
else
  printf '%s\n' "$out" | grep -v '^\s*at ' | head -n 20
  fail "deno check on a TypeScript consumer of cqlwire's declarations"
fi

echo "sizes: tarball $tarball_bytes bytes; WASM $wasm_bytes bytes, $wasm_gzip gzipped"
if ((failures > 0)); then
  echo "npm_pack: $failures check(s) failed"
  exit 1
fi
echo "npm_pack: all checks passed"
