// A WASM trap in a socket, timer or call on Deno (dist/deno.js): the client closes with one
// DriverInternalError and the process lives. The scenarios are trap_child.mjs, shared with
// tests/node/settle.test.mjs; an uncaught exception there ends the child with exit 1.
import { assertExact as assertEquals } from "../exact.mjs";

Deno.test("a WASM trap in a socket, timer or call closes the client; the Deno process lives", async () => {
  const child = new URL("./trap_child.mjs", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", child],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const report = `exit ${output.code}\nstdout: ${stdout}\nstderr: ${new TextDecoder().decode(output.stderr)}`;
  assertEquals(output.code, 0, report);
  assertEquals(stdout.trim().split("\n"), [
    "socket: pending rejected DriverInternalError ERR_INTERNAL, later calls the same error, sockets 0",
    "timer: DriverInternalError ERR_INTERNAL, later calls the same error, sockets 0",
    "call: DriverInternalError ERR_INTERNAL, later calls the same error, sockets 0",
    "alive",
  ], report);
});
