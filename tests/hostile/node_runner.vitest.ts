/** The hostile-server suite on Node, against dist/node.js (see vitest.config.mjs). */
import { it } from "vitest";
import { type Bundle, installWasmProbe } from "./harness.ts";
import { registerCases } from "./suite.ts";

installWasmProbe();
const bundle = (await import("../../dist/node.js")) as unknown as Bundle;

registerCases((name, fn) => it(name, fn), () => bundle);
