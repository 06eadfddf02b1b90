/**
 * One side of the differential test: every scenario on one driver (DataStax's or cqlwire's),
 * each result described as text (describe.mjs). Runtime-neutral (Node, Deno, Bun, workerd), so
 * the runner can run cqlwire's side in another runtime and read the result back as JSON.
 */
import { describe } from "./describe.mjs";
import { scenarios, settings } from "./scenarios.mjs";

/**
 * A scenario that never settles (a stream whose `end` never comes) is a difference, not a hung
 * run: the longest takes ~3 s on DataStax.
 */
const SCENARIO_TIMEOUT_MS = 20_000;
class Hung {}

/** `{ scenario name: description }` in the scenarios' order; `ks` is written as KS. */
export async function runSide(driver, { host, ks, only = null }) {
  settings.host = host;
  const client = new driver.Client({ contactPoints: [host], localDataCenter: "datacenter1" });
  await client.connect();
  const out = {};
  try {
    for (const s of scenarios) {
      if (only && s.name !== "setup" && !s.name.includes(only)) continue;
      let text;
      let timer;
      const hung = new Promise((_, reject) => (timer = setTimeout(() => reject(new Hung()), SCENARIO_TIMEOUT_MS)));
      try {
        text = describe(await Promise.race([s.run(driver, client, ks), hung]));
      } catch (e) {
        text = e instanceof Hung ? `HUNG: no result after ${SCENARIO_TIMEOUT_MS} ms` : `THREW ${describe(e)}`;
      } finally {
        clearTimeout(timer);
      }
      out[s.name] = text.replaceAll(ks, "KS");
    }
  } finally {
    await client.shutdown();
  }
  return out;
}
