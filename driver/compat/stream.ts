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
      // As DataStax's ResultStream: the error, then the end.
      emit("error", e);
      emit("end");
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

/** The part of Node's `Readable` that `readableRows` uses (passed in: this file is runtime-neutral). */
interface ReadableLike {
  push(chunk: unknown): boolean;
  emit(event: string, ...args: unknown[]): boolean;
}
type ReadableClass = new (options: { objectMode: true; read(this: ReadableLike): void }) => ReadableLike;

/**
 * A Node `Readable` of the rows that fails as DataStax's ResultStream does: `error` is
 * emitted and the stream then ends (`end`), where `Readable.from` would destroy it without
 * an `end`, so code that waits for `end` after logging an error would wait forever.
 */
export function readableRows<R extends ReadableLike>(Readable: ReadableClass, source: AsyncIterable<Row>): R {
  const rows = source[Symbol.asyncIterator]();
  let reading = false;
  return new Readable({
    objectMode: true,
    read() {
      if (reading) return;
      reading = true;
      rows.next().then(
        (r) => {
          reading = false;
          this.push(r.done ? null : r.value);
        },
        (e) => {
          this.emit("error", e);
          this.push(null);
        },
      );
    },
  }) as R;
}
