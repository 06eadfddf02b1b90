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

/** A request's state as `take` left it in the table's registers: read it before the next `take`. */
export interface InFlight {
  readonly context: unknown;
  /** When the request left (performance.now()), for the latency histogram. */
  readonly started: number;
  readonly params: unknown;
  readonly options: unknown;
}

/** An entry of the overflow map: ids whose slot was busy (rare). */
interface Spilled extends InFlight {
  readonly settle: Settle;
}

export class PendingTable implements InFlight {
  /** A slot is in use when its `settlers` entry is set; `ids` then holds its whole id. */
  private ids = new Uint32Array(0);
  private startedAt = new Float64Array(0);
  private settlers: Array<Settle | undefined> = [];
  private contexts: unknown[] = [];
  private paramsOf: unknown[] = [];
  private optionsOf: unknown[] = [];
  private overflow = new Map<number, Spilled>();
  private count = 0;

  /** The registers `take` fills: the request just taken. */
  settle: Settle | undefined = undefined;
  context: unknown = undefined;
  started = 0;
  params: unknown = undefined;
  options: unknown = undefined;

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
    this.startedAt[slot] = started;
    this.settlers[slot] = settle;
    this.contexts[slot] = context;
    this.paramsOf[slot] = params;
    this.optionsOf[slot] = options;
  }

  /** Removes the entry of `id` into the registers; false (registers cleared) when it is not waiting. */
  take(id: number): boolean {
    const slot = id & SLOT_MASK;
    if (slot < this.ids.length && this.settlers[slot] !== undefined && this.ids[slot] === id) {
      this.settle = this.settlers[slot];
      this.context = this.contexts[slot];
      this.started = this.startedAt[slot];
      this.params = this.paramsOf[slot];
      this.options = this.optionsOf[slot];
      this.settlers[slot] = this.contexts[slot] = this.paramsOf[slot] = this.optionsOf[slot] = undefined;
      this.count--;
      return true;
    }
    const other = this.overflow.get(id);
    if (other === undefined) {
      this.clear();
      return false;
    }
    this.overflow.delete(id);
    this.count--;
    this.settle = other.settle;
    this.context = other.context;
    this.started = other.started;
    this.params = other.params;
    this.options = other.options;
    return true;
  }

  /** Empties the registers, so the request taken last is not kept alive by the table. */
  clear(): void {
    this.settle = this.context = this.params = this.options = undefined;
  }

  /** Removes every entry and returns their settlers (on close). */
  takeAllSettlers(): Settle[] {
    const all: Settle[] = [];
    for (const settle of this.settlers) if (settle !== undefined) all.push(settle);
    for (const entry of this.overflow.values()) all.push(entry.settle);
    this.settlers.fill(undefined);
    this.contexts.fill(undefined);
    this.paramsOf.fill(undefined);
    this.optionsOf.fill(undefined);
    this.overflow.clear();
    this.count = 0;
    this.clear();
    return all;
  }

  /** Doubles the arrays until `slots` fit; the core hands out the lowest free slot first. */
  private grow(slots: number): void {
    let capacity = Math.max(64, this.ids.length);
    while (capacity < slots) capacity *= 2;
    const ids = new Uint32Array(capacity);
    ids.set(this.ids);
    this.ids = ids;
    const startedAt = new Float64Array(capacity);
    startedAt.set(this.startedAt);
    this.startedAt = startedAt;
    for (const lane of [this.settlers, this.contexts, this.paramsOf, this.optionsOf] as unknown[][]) {
      while (lane.length < capacity) lane.push(undefined);
    }
  }
}
