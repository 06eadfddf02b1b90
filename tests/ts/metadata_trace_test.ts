/**
 * metadata.getTrace reads again until the server has written the trace (the session row's
 * duration), as DataStax's driver does: Cassandra writes a trace after it has answered.
 */
import { assertExact as assertEquals } from "../exact.mjs";
import { Metadata, type MetadataSource } from "../../driver/src/metadata.ts";

/** A client whose session row is complete from the `completeAt`-th read on (0: never there). */
function traces(completeAt: number, present = true) {
  const reads: string[] = [];
  let sessionReads = 0;
  const source = {
    execute(query: string) {
      reads.push(query.includes("sessions") ? "session" : "events");
      if (query.includes("events")) return Promise.resolve({ rows: [{ activity: "a" }] });
      sessionReads++;
      const row = { session_id: "x", duration: completeAt > 0 && sessionReads >= completeAt ? 42 : null };
      return Promise.resolve({ rows: present ? [row] : [] });
    },
  } as unknown as MetadataSource;
  return { metadata: new Metadata(source), reads };
}

Deno.test("getTrace: a session row without its duration is read again until it has one", async () => {
  const { metadata, reads } = traces(3);
  const trace = await metadata.getTrace("x");
  assertEquals(trace, { session_id: "x", duration: 42, events: [{ activity: "a" }] });
  assertEquals(reads, ["session", "session", "session", "events"]);
});

Deno.test("getTrace: after 5 reads the last one is given as it is; no session row is null", async () => {
  const incomplete = traces(0);
  assertEquals(await incomplete.metadata.getTrace("x"), { session_id: "x", duration: null, events: [{ activity: "a" }] });
  assertEquals(incomplete.reads, ["session", "session", "session", "session", "session", "events"]);
  const absent = traces(0, false);
  assertEquals(await absent.metadata.getTrace("x"), null);
  assertEquals(absent.reads.length, 5);
});
