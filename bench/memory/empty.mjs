// An empty program: the runtime's own memory, for bench/memory/run's baseline. It loads the
// same helper modules as probe.mjs (their node: imports cost Deno ~12 MB of polyfills), so
// that probe.mjs's `import` row minus this one is what the driver's import adds, nothing else.
import "../clients/harness.mjs";
import "./usage.mjs";
