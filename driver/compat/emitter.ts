/**
 * The part of Node's `EventEmitter` that DataStax's `metrics.DefaultMetrics` and
 * `tracker.RequestLogger#emitter` users call (`on`, `once`, `off`, `emit`, `listenerCount`...),
 * without `node:events`, which workerd and browsers may lack. As Node's: listeners run
 * synchronously in the order added, and what one throws reaches the caller of `emit`.
 */
// deno-lint-ignore no-explicit-any
type Listener = (...args: any[]) => void;

export class Emitter {
  readonly #listeners = new Map<string | symbol, Listener[]>();

  on(event: string | symbol, listener: Listener): this {
    const list = this.#listeners.get(event);
    if (list) list.push(listener);
    else this.#listeners.set(event, [listener]);
    return this;
  }

  addListener(event: string | symbol, listener: Listener): this {
    return this.on(event, listener);
  }

  prependListener(event: string | symbol, listener: Listener): this {
    this.#listeners.set(event, [listener, ...(this.#listeners.get(event) ?? [])]);
    return this;
  }

  once(event: string | symbol, listener: Listener): this {
    const once: Listener & { listener?: Listener } = (...args) => {
      this.off(event, once);
      listener(...args);
    };
    once.listener = listener;
    return this.on(event, once);
  }

  /** Removes the last registration of `listener` (or of a `once` wrapping it), as Node does. */
  off(event: string | symbol, listener: Listener): this {
    const list = this.#listeners.get(event);
    if (!list) return this;
    for (let i = list.length - 1; i >= 0; i--) {
      const l = list[i] as Listener & { listener?: Listener };
      if (l === listener || l.listener === listener) {
        list.splice(i, 1);
        break;
      }
    }
    if (list.length === 0) this.#listeners.delete(event);
    return this;
  }

  removeListener(event: string | symbol, listener: Listener): this {
    return this.off(event, listener);
  }

  removeAllListeners(event?: string | symbol): this {
    if (event === undefined) this.#listeners.clear();
    else this.#listeners.delete(event);
    return this;
  }

  emit(event: string | symbol, ...args: unknown[]): boolean {
    const list = this.#listeners.get(event);
    if (!list) return false;
    for (const fn of [...list]) fn.apply(this, args);
    return true;
  }

  listenerCount(event: string | symbol): number {
    return this.#listeners.get(event)?.length ?? 0;
  }

  listeners(event: string | symbol): Listener[] {
    return (this.#listeners.get(event) ?? []).map((l) => (l as Listener & { listener?: Listener }).listener ?? l);
  }

  eventNames(): Array<string | symbol> {
    return [...this.#listeners.keys()];
  }

  /** Accepted as Node's: this emitter has no leak warning to tune. */
  setMaxListeners(_n: number): this {
    return this;
  }
}
