# cqlwire: two commands on a fresh machine, `make demo` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
ROOT := $(abspath .)
BIN := $(ROOT)/node_modules/.bin
DENO := $(BIN)/deno
export PATH := $(HOME)/.cargo/bin:$(PATH)

WASM_RAW := target/wasm32-unknown-unknown/release/cqlwire_wasm.wasm
WASM_PKG := driver/wasm/pkg/cqlwire_wasm_bg.wasm
CORE_SRC := $(shell find core/src wasm/src -name '*.rs' 2>/dev/null) core/Cargo.toml wasm/Cargo.toml Cargo.toml
WASM_FEATURES := --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue

.PHONY: help bootstrap bootstrap-test build wasm codecs dist demo test test-rust test-deno test-node test-workerd \
  test-package test-faults test-fuzz fuzz bench cassandra-start cassandra-stop clean-demo faults-results mutants mutants-diff

help:
	@echo "make demo   - set up, start a local Cassandra, load a sample CSV and query it back"
	@echo "make test   - run every test (Rust, Deno, Node, workerd, packaging, CLI, short fuzz)"
	@echo "make test-faults - the 3-node fault scenarios; make bench - benchmarks with peers"
	@echo "make mutants - mutation testing of the core's decoders and parsers (cargo-mutants)"

bootstrap:
	@scripts/bootstrap

# The tests also fuzz the decoders briefly, so they need cargo-fuzz and a nightly toolchain.
bootstrap-test:
	@scripts/bootstrap --fuzz

wasm: $(WASM_PKG)

# wasm-opt inlines every function with one caller by default, which made the hot
# process_conn_events 36 KB of WASM: V8's optimising tier (TurboFan) then takes a 17 MB zone to
# compile it, and with the other inflated hot functions that raised a Node client's max RSS by
# ~10 MB (bench/memory, issue #17). Capping those inlines at 200 bytes keeps the largest
# compile at 9.8 MB (`node --trace-wasm-compilation-times`) at no measurable CPU cost.
WASM_OPT_INLINING := --one-caller-inline-max-function-size=200

# wasm-bindgen returns strings, bytes and Results through several return values when the
# module declares `multivalue`, and Node 20 then compiles a TurboFan wrapper per such export
# signature as soon as the module is compiled: +1.3 MB of max RSS (scripts/wasm-drop-feature,
# bench/MEMORY.md). Without it those cold exports return through a stack slot.
WASM_BINDGEN_IN := target/wasm-bindgen-in/cqlwire_wasm.wasm
# The shipped module needs no custom sections (producers, target_features): an engine reads
# neither.
WASM_OPT_STRIP := --strip-producers --strip-target-features

$(WASM_PKG): $(CORE_SRC) scripts/wasm-drop-feature
	cargo build -q -p cqlwire-wasm --target wasm32-unknown-unknown --release
	@mkdir -p $(dir $(WASM_BINDGEN_IN))
	scripts/wasm-drop-feature $(WASM_RAW) $(WASM_BINDGEN_IN) multivalue
	wasm-bindgen --target web --out-dir driver/wasm/pkg $(WASM_BINDGEN_IN)
	$(BIN)/wasm-opt -O3 $(WASM_OPT_INLINING) $(WASM_OPT_STRIP) $(WASM_FEATURES) -o $(WASM_PKG) $(WASM_PKG)
	@printf 'wasm: %s bytes, %s gzipped\n' "$$(stat -c %s $(WASM_PKG))" "$$(gzip -9c $(WASM_PKG) | wc -c)"

# The CLI's bzip2 (cli/codecs/): its own small WASM, so the driver's stays as it is.
CODECS_PKG := cli/codecs/pkg/cqlwire_codecs_bg.wasm
codecs: $(CODECS_PKG)

$(CODECS_PKG): $(shell find cli/codecs/src -name '*.rs') cli/codecs/Cargo.toml
	cargo build -q -p cqlwire-codecs --target wasm32-unknown-unknown --release
	wasm-bindgen --target web --out-dir cli/codecs/pkg target/wasm32-unknown-unknown/release/cqlwire_codecs.wasm
	$(BIN)/wasm-opt -O3 $(WASM_FEATURES) -o $(CODECS_PKG) $(CODECS_PKG)

build: wasm codecs dist

# The npm bundle: one JS file per runtime plus the shared WASM, and the type declarations.
dist: $(WASM_PKG) $(shell find driver -name '*.ts' -not -path '*/pkg/*')
	@scripts/build-dist

cassandra-start:
	@scripts/cassandra start

cassandra-stop:
	@scripts/cassandra stop

demo: bootstrap build cassandra-start
	@bin/cqlwire query -f examples/demo/schema.cql
	@bin/cqlwire load examples/demo/people.csv --table demo.people
	@bin/cqlwire query "SELECT * FROM demo.people"
	@bin/cqlwire query "SELECT release_version FROM system.local"

test: bootstrap-test build
	@scripts/run-tests

test-faults: bootstrap build
	@scripts/run-tests --faults

# Test runs write fault measurements to tests/faults/out/ (ignored); this publishes them into
# the committed tests/faults/results.json and RESULTS.md, on purpose.
faults-results:
	@$(DENO) run -A tests/faults/publish.ts

# Mutation testing of the core's decoders and parsers (cargo-mutants, bounded in time): a
# survivor must be killed by a test or explained in core/mutants/equivalent.txt. CI runs
# `make mutants-diff` (MUTANTS_BASE=main): only the core lines a change touches.
mutants:
	@scripts/bootstrap --mutants
	@scripts/run-mutants

MUTANTS_BASE ?= main
mutants-diff:
	@scripts/bootstrap --mutants
	@scripts/run-mutants --in-diff $(MUTANTS_BASE)

fuzz:
	@scripts/bootstrap --fuzz
	@scripts/run-fuzz 300
	@# The TypeScript property suites (fast-check), 50x their make-test runs, fresh seed.
	@CQLWIRE_PROPS_RUNS=10000 node_modules/.bin/deno test -A --quiet tests/props/

bench: bootstrap build
	@bench/run
