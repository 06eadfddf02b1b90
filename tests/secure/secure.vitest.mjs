// TLS and auth on Node 20, against the built bundle dist/node.js.
import { ok } from "node:assert/strict";
import { assertExact } from "../exact.mjs";
import { readFileSync } from "node:fs";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";
import { beforeAll, describe, test } from "vitest";
import * as cqlwire from "../../dist/node.js";
import { secureCases } from "./cases.mjs";
import { requireServers, secureSettings } from "./settings.mjs";
import { startWrongHostProxy } from "./wrong_host_proxy.mjs";

const settings = secureSettings({
  runtime: "node",
  root: fileURLToPath(new URL("../../", import.meta.url)),
  env: (name) => process.env[name],
  readText: (path) => readFileSync(path, "utf8"),
  inspect: (v) => inspect(v, { depth: 6 }),
  canConnect: (host, port) =>
    new Promise((resolve) => {
      const s = net.connect({ host, port });
      const timer = setTimeout(() => (s.destroy(), resolve(false)), 3000);
      s.once("connect", () => (clearTimeout(timer), s.destroy(), resolve(true)));
      s.once("error", () => (clearTimeout(timer), resolve(false)));
    }),
  startWrongHostProxy,
});
const nodeAssert = { ok: (value, message) => ok(value, message), equal: (actual, expected, message) => assertExact(actual, expected, message) };

describe(`cqlwire dist/node.js on Node ${process.version}: TLS and auth`, () => {
  beforeAll(() => requireServers(settings));
  for (const c of secureCases({ Client: cqlwire.Client, errors: cqlwire }, nodeAssert, settings)) test(c.name, c.run);
});
