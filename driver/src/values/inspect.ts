/**
 * How `console.log` / `util.inspect` show the DataStax value classes: with the own fields the
 * DataStax driver's instances have (a `Uuid` as `Uuid { buffer: <Buffer ...> }`), so logs of
 * code moved from DataStax read as before, whatever cqlwire keeps inside.
 */
export const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/**
 * An object of `self`'s class holding `fields` as its own, for Node's inspect to show in its
 * place (Node formats what a custom inspect returns at the same depth). Its own `INSPECT`,
 * undefined and not enumerable, keeps Node from asking the class again.
 */
export function inspectedAs(self: object, fields: Record<string, unknown>): object {
  const view = Object.create(Object.getPrototypeOf(self));
  Object.defineProperty(view, INSPECT, { value: undefined });
  for (const [k, value] of Object.entries(fields)) Object.defineProperty(view, k, { value, enumerable: true });
  return view;
}
