# workerd config for the Worker test: serves tests/workerd/worker.mjs, which imports the built
# bundle dist/workerd.js exactly as a Worker deployment would. Module names are paths from the
# repository root, so the relative imports inside the modules resolve as they do on disk
# (dist/workerd.js imports "./wasm/pkg/cqlwire_wasm_bg.wasm" -> dist/wasm/pkg/...).
#
#   workerd serve tests/workerd/config.capnp --socket-addr http=127.0.0.1:PORT
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "cqlwire-test", worker = .testWorker),
    # connect() from cloudflare:sockets goes through the Worker's global outbound service;
    # the default one refuses loopback addresses, and Cassandra listens on 127.0.0.1.
    (name = "loopback", network = (allow = ["public", "local"])),
  ],
  sockets = [
    (name = "http", address = "127.0.0.1:8787", http = (), service = "cqlwire-test"),
  ],
);

const testWorker :Workerd.Worker = (
  modules = [
    (name = "tests/workerd/worker.mjs", esModule = embed "worker.mjs"),
    (name = "tests/conformance/cases.mjs", esModule = embed "../conformance/cases.mjs"),
    (name = "tests/conformance/neutral.mjs", esModule = embed "../conformance/neutral.mjs"),
    (name = "tests/exact.mjs", esModule = embed "../exact.mjs"),
    (name = "tests/scylla/inserts.mjs", esModule = embed "../scylla/inserts.mjs"),
    (name = "dist/workerd.js", esModule = embed "../../dist/workerd.js"),
    (name = "dist/wasm/pkg/cqlwire_wasm_bg.wasm", wasm = embed "../../dist/wasm/pkg/cqlwire_wasm_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "loopback",
);
