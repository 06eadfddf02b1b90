# workerd config for the differential test's Worker side (worker.mjs, started by workerd.mjs).
# Module names are paths from the repository root, so relative imports resolve as on disk.
# nodejs_compat: DataStax code uses Buffer (and the scenarios node:buffer, node:util), so a
# Worker that runs it has the flag on.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "differential", worker = .worker),
    # connect() from cloudflare:sockets goes through the global outbound service; the default
    # one refuses loopback addresses, and Cassandra listens on 127.0.0.1.
    (name = "loopback", network = (allow = ["public", "local"])),
  ],
  sockets = [
    # The address is given on the command line (--socket-addr http=127.0.0.1:0).
    (name = "http", address = "127.0.0.1:8788", http = (), service = "differential"),
  ],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "tests/compat/differential/worker.mjs", esModule = embed "worker.mjs"),
    (name = "tests/compat/differential/side.mjs", esModule = embed "side.mjs"),
    (name = "tests/compat/differential/describe.mjs", esModule = embed "describe.mjs"),
    (name = "tests/compat/differential/scenarios.mjs", esModule = embed "scenarios.mjs"),
    (name = "dist/compat-workerd.js", esModule = embed "../../../dist/compat-workerd.js"),
    (name = "dist/wasm/pkg/cqlwire_wasm_bg.wasm", wasm = embed "../../../dist/wasm/pkg/cqlwire_wasm_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat"],
  globalOutbound = "loopback",
);
