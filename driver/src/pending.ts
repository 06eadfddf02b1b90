/**
 * The requests waiting for their answers, by request id.
 *
 * The core's request ids are slot-tagged (core/src/session.rs `SlotIds`): a dense slot that is
 * reused first in the low 20 bits, a generation above. So the table is an array indexed by the
 * low bits, each entry keeping its id for the check: no hashing and nothing allocated per
 * request, where a Map reallocated its hash table every thousand or so requests under load.
 * An id whose slot holds another live id goes to a Map, so any id works, only slower.
 */
const SLOT_MASK = 0xfffff;

export interface Keyed {
  readonly id: number;
}

export class PendingTable<T extends Keyed> {
  private slots: Array<T | undefined> = [];
  private overflow = new Map<number, T>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(entry: T): void {
    const slot = entry.id & SLOT_MASK;
    const slots = this.slots;
    while (slots.length <= slot) slots.push(undefined);
    if (slots[slot] === undefined) slots[slot] = entry;
    else this.overflow.set(entry.id, entry);
    this.count++;
  }

  /** Removes and returns the entry of `id`, if it is waiting. */
  take(id: number): T | undefined {
    const slot = id & SLOT_MASK;
    const entry = this.slots[slot];
    if (entry !== undefined && entry.id === id) {
      this.slots[slot] = undefined;
      this.count--;
      return entry;
    }
    const other = this.overflow.get(id);
    if (other !== undefined) {
      this.overflow.delete(id);
      this.count--;
    }
    return other;
  }

  /** Removes and returns every entry (on close). */
  takeAll(): T[] {
    const all: T[] = [];
    for (const entry of this.slots) if (entry !== undefined) all.push(entry);
    for (const entry of this.overflow.values()) all.push(entry);
    this.slots = [];
    this.overflow.clear();
    this.count = 0;
    return all;
  }
}
