// An empty program: the runtime's own memory, for bench/memory/run's baseline. It loads the
// same helper modules as probe.mjs (which load no `node:` module until the end, see
// ../clients/runtime.mjs), so that probe.mjs's `import` row minus this one is what the
// driver's import adds, nothing else.
import "../clients/harness.mjs";
import "./usage.mjs";
