/**
 * Publishes the fault scenarios' latest measured rows (tests/faults/out/, written by test
 * runs and ignored by git) into the committed tables tests/faults/results.json and RESULTS.md.
 * Run on purpose, through `make faults-results`; test runs never touch tracked files.
 */
import { mergeResults, PUBLISHED_JSON, PUBLISHED_MD, readResults, RESULTS_OUT, writeResults } from "./helpers.ts";

const measured = await readResults(`${RESULTS_OUT}/results.json`);
if (measured.length === 0) {
  console.error(`no measured rows in ${RESULTS_OUT}/results.json: run the fault scenarios first (make test or make test-faults)`);
  Deno.exit(1);
}
await writeResults(PUBLISHED_JSON, PUBLISHED_MD, mergeResults(await readResults(PUBLISHED_JSON), measured));
console.log(`published ${measured.length} rows into ${PUBLISHED_JSON} and ${PUBLISHED_MD}`);
