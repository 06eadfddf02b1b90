/**
 * cqlwire's side of the differential test inside a Worker, from the built bundle
 * dist/compat-workerd.js (the file `cqlwire/compat` resolves to under the `workerd` condition).
 * `GET /?host=H:P&ks=KS&only=NAME` runs every scenario and answers `{ scenario: description }`.
 */
import * as driver from "../../../dist/compat-workerd.js";
import { runSide } from "./side.mjs";

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const q = (k) => url.searchParams.get(k) || null;
    try {
      const out = await runSide(driver, { host: q("host"), ks: q("ks"), only: q("only") });
      return Response.json(out);
    } catch (e) {
      return Response.json({ failure: `the Worker threw ${e?.name}: ${e?.message}\n${e?.stack ?? ""}` });
    }
  },
};
