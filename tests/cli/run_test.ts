/**
 * runCli's deadline holds for runs fed bytes on stdin too (the stdin cases of
 * inputs_test.ts go through it): a CLI that hangs is killed and the run throws. No
 * Cassandra needed: the contact point is a port that accepts and never answers.
 */
import { assertMatch } from "./assert.ts";
import { runCli, silentListener } from "./run.ts";

Deno.test("runCli with stdin bytes kills a hung CLI at its deadline and throws", async () => {
  const hung = silentListener();
  try {
    const started = Date.now();
    let thrown: Error | undefined;
    try {
      await runCli(["load", "-", "--hosts", `127.0.0.1:${hung.port}`, "--keyspace", "ks", "--table", "t"], {
        stdin: new TextEncoder().encode("a\n1\n"),
        deadlineMs: 1500,
      });
    } catch (e) {
      thrown = e as Error;
    }
    assertMatch(thrown?.message ?? "resolved", /^cqlwire load - .* did not exit within 1500 ms and was killed/);
    if (Date.now() - started > 10000) throw new Error(`the kill took ${Date.now() - started} ms`);
  } finally {
    hung.close();
  }
});
