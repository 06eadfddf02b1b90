// An empty program: the runtime's own memory, for bench/memory/run's baseline.
