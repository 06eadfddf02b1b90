// Writes schemas/job.schema.json from the zod schema in job.ts, for editors and other
// tools. Run `deno run -A schemas/generate.ts` after changing job.ts; a test in
// tests/cli/ fails while the checked-in file is out of date.

import { z } from "zod";
import { jobSchema } from "./job.ts";

export function generateJobJsonSchema(): string {
  const schema = z.toJSONSchema(jobSchema, { target: "draft-2020-12" });
  return JSON.stringify(
    { ...schema, title: "cqlwire job configuration" },
    null,
    2,
  ) + "\n";
}

export const JOB_SCHEMA_PATH = new URL("./job.schema.json", import.meta.url);

if (import.meta.main) {
  await Deno.writeTextFile(JOB_SCHEMA_PATH, generateJobJsonSchema());
  console.log(`wrote ${JOB_SCHEMA_PATH.pathname}`);
}
