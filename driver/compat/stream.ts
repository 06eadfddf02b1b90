/**
 * The rows of `stream()` where there is no Node `Readable` (Workers): async iterable, and the
 * `data`/`end`/`error` events of a flowing stream once a `data` listener is attached.
 */
import type { Row } from "./values.ts";

type Listener = (...args: unknown[]) => void;

export function rowEmitter(source: AsyncIterable<Row>) {
  const listeners = new Map<string, Listener[]>();
  let flowing = false;
  const emit = (event: string, ...args: unknown[]) => {
    for (const fn of listeners.get(event) ?? []) fn(...args);
  };
  const flow = async () => {
    try {
      for await (const row of source) emit("data", row);
      emit("end");
    } catch (e) {
      emit("error", e);
    }
  };
  return {
    on(event: string, fn: Listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), fn]);
      if (event === "data" && !flowing) {
        flowing = true;
        queueMicrotask(() => void flow());
      }
      return this;
    },
    [Symbol.asyncIterator]: () => source[Symbol.asyncIterator](),
  };
}
