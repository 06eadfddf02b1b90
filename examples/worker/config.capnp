# workerd config for the example Worker. The module names matter: the Worker imports
# "cqlwire", and the bundle imports "./wasm/pkg/cqlwire_wasm_bg.wasm" relative to its own name.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "example", worker = .exampleWorker),
    # cloudflare:sockets connect() uses the global outbound, which by default refuses loopback.
    (name = "loopback", network = (allow = ["public", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8788", http = (), service = "example")],
);

const exampleWorker :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "worker.mjs"),
    (name = "cqlwire", esModule = embed "../../dist/workerd.js"),
    (name = "wasm/pkg/cqlwire_wasm_bg.wasm", wasm = embed "../../dist/wasm/pkg/cqlwire_wasm_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "loopback",
);
