/**
 * The requests waiting for their answers, by request id.
 *
 * The core's request ids are slot-tagged (core/src/session.rs `SlotIds`): a dense slot that is
 * reused first in the low 20 bits, a generation above. So the table is indexed by the low
 * bits, each slot keeping its id for the check: no hashing, where a Map reallocated its hash
 * table every thousand or so requests under load. An id whose slot holds another live id goes
 * to a Map, so any id works, only slower.
 *
 * A request's state lives in parallel arrays indexed by the slot, not in an object of its own:
 * at 1024 in flight every scavenge copies whatever young objects the requests in flight keep,
 * and the arrays are old after their first growth. What a request keeps young is its promise
 * and its resolve function, and what its caller chose to keep (`context`, `params`, `options`).
 */
const SLOT_MASK = 0xfffff;

/** A request promise's resolve function: the only settler a request keeps (see `Rejection`). */
export type Settle = (value: unknown) => void;

/**
 * What a failed request's promise is resolved with: a thenable the promise adopts, rejected
 * with `error` one microtask later. So a request keeps only its resolve function, and the
 * reject function V8 made with it dies young: one function less per request surviving every
 * scavenge while it is in flight.
 */
class Rejection {
  constructor(private readonly error: Error) {}

  then(_resolve: unknown, reject: (error: Error) => void): void {
    reject(this.error);
  }
}

/** Rejects the promise whose resolve function is `settle` with `error`. */
export function rejectWith(settle: Settle, error: Error): void {
  settle(new Rejection(error));
}

/** A request's state while it waits (an entry of the overflow map: ids whose slot was busy, rare). */
interface Spilled {
  readonly settle: Settle;
  readonly context: unknown;
  readonly started: number;
  readonly params: unknown;
  readonly options: unknown;
}

/**
 * `take` hands out where a request's state is (`at`); the getters read it there until
 * `release(at)`. Reading in place keeps the settle path to loads: copying each request's state
 * into fields of the table cost the SELECT loop more than the objects it saved.
 */
export class PendingTable {
  /** A slot is in use when its `settlers` entry is set; `ids` then holds its whole id. */
  private ids = new Uint32Array(0);
  /** The lanes have one place more than `ids`: where `take` puts an overflow entry. */
  private startTimes = new Float64Array(1);
  private settlers: Array<Settle | undefined> = [undefined];
  private contexts: unknown[] = [undefined];
  private paramsLane: unknown[] = [undefined];
  private optionsLane: unknown[] = [undefined];
  private overflow = new Map<number, Spilled>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(id: number, settle: Settle, context: unknown, started: number, params: unknown, options: unknown): void {
    const slot = id & SLOT_MASK;
    if (slot >= this.ids.length) this.grow(slot + 1);
    this.count++;
    if (this.settlers[slot] !== undefined) {
      this.overflow.set(id, { settle, context, started, params, options });
      return;
    }
    this.ids[slot] = id;
    this.put(slot, settle, context, started, params, options);
  }

  /** Removes request `id` from the waiting ones: where its state is until `release`, or -1. */
  take(id: number): number {
    const slot = id & SLOT_MASK;
    if (slot < this.ids.length && this.settlers[slot] !== undefined && this.ids[slot] === id) {
      this.count--;
      return slot;
    }
    const other = this.overflow.get(id);
    if (other === undefined) return -1;
    this.overflow.delete(id);
    this.count--;
    const spare = this.ids.length;
    this.put(spare, other.settle, other.context, other.started, other.params, other.options);
    return spare;
  }

  settleAt(at: number): Settle {
    return this.settlers[at]!;
  }

  contextAt(at: number): unknown {
    return this.contexts[at];
  }

  /** When the request left (performance.now()), for the latency histogram. */
  startedAt(at: number): number {
    return this.startTimes[at];
  }

  paramsAt(at: number): unknown {
    return this.paramsLane[at];
  }

  optionsAt(at: number): unknown {
    return this.optionsLane[at];
  }

  /** Forgets a taken request's state, so the table keeps nothing of it alive; its slot is free. */
  release(at: number): void {
    this.settlers[at] = this.contexts[at] = this.paramsLane[at] = this.optionsLane[at] = undefined;
  }

  /** Removes every entry and returns their settlers (on close). */
  takeAllSettlers(): Settle[] {
    const all: Settle[] = [];
    for (const settle of this.settlers) if (settle !== undefined) all.push(settle);
    for (const entry of this.overflow.values()) all.push(entry.settle);
    this.settlers.fill(undefined);
    this.contexts.fill(undefined);
    this.paramsLane.fill(undefined);
    this.optionsLane.fill(undefined);
    this.overflow.clear();
    this.count = 0;
    return all;
  }

  private put(at: number, settle: Settle, context: unknown, started: number, params: unknown, options: unknown): void {
    this.settlers[at] = settle;
    this.contexts[at] = context;
    this.startTimes[at] = started;
    this.paramsLane[at] = params;
    this.optionsLane[at] = options;
  }

  /** Doubles the arrays until `slots` fit; the core hands out the lowest free slot first. */
  private grow(slots: number): void {
    let capacity = Math.max(64, this.ids.length);
    while (capacity < slots) capacity *= 2;
    const ids = new Uint32Array(capacity);
    ids.set(this.ids);
    this.ids = ids;
    // The spare place moves to the new end; nothing is in it between a take and its release.
    const startTimes = new Float64Array(capacity + 1);
    startTimes.set(this.startTimes.subarray(0, this.startTimes.length - 1));
    this.startTimes = startTimes;
    for (const lane of [this.settlers, this.contexts, this.paramsLane, this.optionsLane]) {
      lane[lane.length - 1] = undefined;
      while (lane.length < capacity + 1) lane.push(undefined);
    }
  }
}
