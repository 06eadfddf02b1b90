/**
 * The DataStax driver's `types.Vector` (4.7+): a CQL `vector<subtype, n>` value. As DataStax
 * shapes it, so code that reads `v[0]`, `v.length`, `Object.keys(v)` or `JSON.stringify(v)`
 * sees the same: a Proxy giving the elements by index, whose own keys are those of the array
 * it was built from (with `length` for an array, without for a Float32Array), and
 * `instanceof Vector` holding for a Float32Array too (DataStax writes one as a float vector).
 */
import { toCqlValue } from "../src/codec/mod.ts";

const isIndex = (key: string | symbol): key is string => typeof key === "string" && Number.isInteger(Number(key));
const vectors = new WeakSet<object>();

export class Vector {
  readonly elements: unknown[];
  readonly length: number;
  /** The subtype's CQL name ("float"), or undefined when the caller gave none. */
  subtype: string | undefined;
  [index: number]: unknown;

  constructor(elements: Float32Array | unknown[], subtype?: string) {
    if (elements instanceof Float32Array) this.elements = Array.from(elements);
    else if (Array.isArray(elements)) this.elements = elements;
    else throw new TypeError("Vector must be constructed with a Float32Array or an Array");
    if (this.elements.length === 0) throw new TypeError("Vector must contain at least one value");
    this.length = this.elements.length;
    this.subtype = subtype;
    const proxy = new Proxy(this, {
      get: (obj, key) => (isIndex(key) ? obj.elements[Number(key)] : Reflect.get(obj, key)),
      set: (obj, key, value) => {
        if (isIndex(key)) obj.elements[Number(key)] = value;
        else Reflect.set(obj, key, value);
        return true;
      },
      ownKeys: () => Reflect.ownKeys(elements),
      getOwnPropertyDescriptor: (obj, key) => (isIndex(key) ? { enumerable: true, configurable: true } : Reflect.getOwnPropertyDescriptor(obj, key)),
    });
    vectors.add(proxy);
    return proxy;
  }

  /** A Vector, or a Float32Array (which DataStax takes as a float vector). */
  static [Symbol.hasInstance](value: unknown): boolean {
    return (typeof value === "object" && value !== null && vectors.has(value)) || value instanceof Float32Array;
  }

  toString(): string {
    return `[${this.elements.toString()}]`;
  }

  at(index: number): unknown {
    return this.elements[index];
  }

  [Symbol.iterator](): Iterator<unknown> {
    return this.elements[Symbol.iterator]();
  }

  forEach(callback: (value: unknown, index: number, array: unknown[]) => void): void {
    this.elements.forEach(callback);
  }

  getSubtype(): string | undefined {
    return this.subtype;
  }

  [toCqlValue](): unknown[] {
    return this.elements;
  }
}
