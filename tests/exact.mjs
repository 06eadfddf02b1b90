/**
 * The one exact comparison of the TypeScript and JavaScript test suites (Deno, Node, workerd).
 * Plain JavaScript with JSDoc types, so every runtime imports the same file unchanged.
 *
 * Exact means: numbers by Object.is (NaN equals NaN; -0 is not 0; ±Infinity is itself),
 * bigint by value and never equal to a number, Date by time value, Map and Set by entries in
 * order, typed arrays, DataView and ArrayBuffer by class and bytes, and every other object by
 * class (prototype) and own enumerable properties, so the driver's value classes (CqlDecimal,
 * CqlDate, CqlTime, CqlTimestamp, CqlDuration, ...) compare by content and class. A JSON round
 * trip would turn NaN and ±Infinity into null, -0 into 0 and a Map into {}; nothing here does.
 *
 * A difference is reported with the path of the first one, e.g. `$.rows[3].get("k")`.
 */

export class ExactnessError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "ExactnessError";
  }
}

/**
 * Fails with a readable diff unless `actual` and `expected` are exactly equal.
 * @param {unknown} actual
 * @param {unknown} expected
 * @param {string} [message]
 * @returns {void}
 */
export function assertExact(actual, expected, message = "") {
  const diff = difference(actual, expected);
  if (diff !== null) throw new ExactnessError(`${message ? `${message}: ` : ""}${diff}`);
}

/**
 * @param {unknown} actual
 * @param {unknown} expected
 * @returns {boolean}
 */
export function exactlyEqual(actual, expected) {
  return difference(actual, expected) === null;
}

/**
 * The first difference between two values, as "at PATH: actual X, expected Y", or null.
 * @param {unknown} actual
 * @param {unknown} expected
 * @param {string} [path]
 * @returns {string | null}
 */
export function difference(actual, expected, path = "$") {
  return compare(actual, expected, path, new Map());
}

/**
 * @param {unknown} a
 * @param {unknown} e
 * @param {string} path
 * @param {Map<object, object>} seen pairs already being compared (cyclic values)
 * @returns {string | null}
 */
function compare(a, e, path, seen) {
  if (Object.is(a, e)) return null;
  if (typeof a === "string" && typeof e === "string") return stringDifference(a, e, path);
  if (!isObject(a) || !isObject(e)) return differs(path, a, e);
  if (seen.get(a) === e) return null;
  seen.set(a, e);
  const protoA = Object.getPrototypeOf(a);
  const protoE = Object.getPrototypeOf(e);
  if (protoA !== protoE) return `at ${path}: class ${className(a)} vs expected class ${className(e)}: actual ${show(a)}, expected ${show(e)}`;
  if (a instanceof Date) return Object.is(a.getTime(), /** @type {Date} */ (e).getTime()) ? null : differs(path, a, e);
  if (a instanceof ArrayBuffer) return bytesDifference(new Uint8Array(a), new Uint8Array(/** @type {ArrayBuffer} */ (e)), path);
  if (a instanceof DataView) return bytesDifference(viewBytes(a), viewBytes(/** @type {DataView} */ (e)), path);
  if (ArrayBuffer.isView(a)) return elementsDifference(/** @type {ArrayLike<unknown>} */ (a), /** @type {ArrayLike<unknown>} */ (e), path, seen);
  if (a instanceof Map) return mapDifference(a, /** @type {Map<unknown, unknown>} */ (e), path, seen);
  if (a instanceof Set) return elementsDifference([...a], [...(/** @type {Set<unknown>} */ (e))], `${path}<set>`, seen);
  if (Array.isArray(a)) {
    const d = elementsDifference(a, /** @type {unknown[]} */ (e), path, seen);
    if (d !== null) return d;
  }
  if (a instanceof Error) {
    const d = compare(a.message, /** @type {Error} */ (e).message, `${path}.message`, seen);
    if (d !== null) return d;
  }
  return propertiesDifference(a, e, path, seen);
}

/** @param {unknown} v @returns {v is object} */
function isObject(v) {
  return (typeof v === "object" && v !== null) || typeof v === "function";
}

/** @param {string} path @param {unknown} a @param {unknown} e */
function differs(path, a, e) {
  return `at ${path}: actual ${show(a)}, expected ${show(e)}`;
}

/**
 * Long strings (a 10k-digit varint) would bury the difference: show where it starts.
 * @param {string} a @param {string} e @param {string} path
 */
function stringDifference(a, e, path) {
  if (a.length + e.length < 200) return differs(path, a, e);
  let i = 0;
  while (i < a.length && a[i] === e[i]) i++;
  const from = Math.max(0, i - 40);
  const cut = (/** @type {string} */ s) => (from > 0 ? "…" : "") + JSON.stringify(s.slice(from, i + 80)) + (s.length > i + 80 ? "…" : "");
  return `at ${path} (first difference at character ${i}, lengths ${a.length} and ${e.length}): actual ${cut(a)}, expected ${cut(e)}`;
}

/** @param {DataView} v */
function viewBytes(v) {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** @param {Uint8Array} a @param {Uint8Array} e @param {string} path */
function bytesDifference(a, e, path) {
  const n = Math.min(a.length, e.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== e[i]) return `at ${path} byte ${i}: actual ${hex(a)}, expected ${hex(e)}`;
  }
  return a.length === e.length ? null : `at ${path}: ${a.length} bytes, expected ${e.length}: actual ${hex(a)}, expected ${hex(e)}`;
}

/**
 * @param {ArrayLike<unknown>} a @param {ArrayLike<unknown>} e @param {string} path
 * @param {Map<object, object>} seen
 */
function elementsDifference(a, e, path, seen) {
  const n = Math.min(a.length, e.length);
  for (let i = 0; i < n; i++) {
    const d = compare(a[i], e[i], `${path}[${i}]`, seen);
    if (d !== null) return d;
  }
  if (a.length === e.length) return null;
  return `at ${path}: length ${a.length}, expected ${e.length}: actual ${show(a)}, expected ${show(e)}`;
}

/**
 * Maps compare entry by entry in order: the driver hands maps out in the server's order.
 * @param {Map<unknown, unknown>} a @param {Map<unknown, unknown>} e @param {string} path
 * @param {Map<object, object>} seen
 */
function mapDifference(a, e, path, seen) {
  const left = [...a.entries()];
  const right = [...e.entries()];
  const n = Math.min(left.length, right.length);
  for (let i = 0; i < n; i++) {
    const key = compare(left[i][0], right[i][0], `${path}.keys()[${i}]`, seen);
    if (key !== null) return key;
    const value = compare(left[i][1], right[i][1], `${path}.get(${show(left[i][0])})`, seen);
    if (value !== null) return value;
  }
  if (left.length === right.length) return null;
  return `at ${path}: ${left.length} entries, expected ${right.length}: actual ${show(a)}, expected ${show(e)}`;
}

/**
 * @param {object} a @param {object} e @param {string} path
 * @param {Map<object, object>} seen
 */
function propertiesDifference(a, e, path, seen) {
  const isArray = Array.isArray(a);
  const keys = (/** @type {object} */ o) => Object.keys(o).filter((k) => !(isArray && /^(0|[1-9]\d*)$/.test(k)));
  const ka = keys(a);
  const ke = keys(e);
  const missing = ke.filter((k) => !Object.prototype.hasOwnProperty.call(a, k));
  if (missing.length > 0) return `at ${path}: missing ${missing.map((k) => JSON.stringify(k)).join(", ")}: actual ${show(a)}, expected ${show(e)}`;
  const extra = ka.filter((k) => !Object.prototype.hasOwnProperty.call(e, k));
  if (extra.length > 0) return `at ${path}: unexpected ${extra.map((k) => JSON.stringify(k)).join(", ")}: actual ${show(a)}, expected ${show(e)}`;
  for (const k of ke) {
    const d = compare(/** @type {Record<string, unknown>} */ (a)[k], /** @type {Record<string, unknown>} */ (e)[k], `${path}${member(k)}`, seen);
    if (d !== null) return d;
  }
  // A class that keeps its state in private fields shows no own keys: its own toString is the
  // only content left to compare.
  if (ka.length === 0 && ownToString(a) && String(a) !== String(e)) return differs(path, a, e);
  return null;
}

/** @param {object} o */
function ownToString(o) {
  const proto = Object.getPrototypeOf(o);
  return !Array.isArray(o) && proto !== null && proto !== Object.prototype && typeof o.toString === "function" && o.toString !== Object.prototype.toString;
}

/** @param {string} k */
function member(k) {
  return /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
}

/** @param {unknown} v */
function className(v) {
  if (!isObject(v)) return typeof v;
  const proto = Object.getPrototypeOf(v);
  if (proto === null) return "null-prototype object";
  return proto.constructor?.name || "anonymous class";
}

/** @param {Uint8Array} bytes */
function hex(bytes) {
  const shown = Array.from(bytes.subarray(0, 64), (b) => b.toString(16).padStart(2, "0")).join(" ");
  return `<${shown}${bytes.length > 64 ? ` … (${bytes.length} bytes)` : ""}>`;
}

/**
 * A short rendering that keeps what JSON loses: -0, NaN, ±Infinity, bigint, undefined, the
 * class of objects and the entries of Maps and Sets.
 * @param {unknown} v
 * @param {number} [depth]
 * @returns {string}
 */
export function show(v, depth = 0) {
  const s = render(v, depth);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/** @param {unknown} v @param {number} depth @returns {string} */
function render(v, depth) {
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "symbol" || typeof v === "boolean" || v === undefined || v === null) return String(v);
  if (typeof v === "function") return `[function ${v.name || "anonymous"}]`;
  if (depth > 4) return `${className(v)}{…}`;
  const inner = (/** @type {unknown} */ x) => render(x, depth + 1);
  if (v instanceof Date) return `Date(${Number.isNaN(v.getTime()) ? "invalid" : v.toISOString()})`;
  if (v instanceof ArrayBuffer) return `ArrayBuffer${hex(new Uint8Array(v))}`;
  if (v instanceof DataView) return `DataView${hex(viewBytes(v))}`;
  if (ArrayBuffer.isView(v)) return `${className(v)}[${Array.from(/** @type {ArrayLike<unknown>} */ (v), inner).join(", ")}]`;
  if (v instanceof Map) return `Map{${[...v.entries()].map(([k, x]) => `${inner(k)} => ${inner(x)}`).join(", ")}}`;
  if (v instanceof Set) return `Set{${[...v].map(inner).join(", ")}}`;
  if (Array.isArray(v)) return `[${v.map(inner).join(", ")}]`;
  if (v instanceof Error) return `${className(v)}(${JSON.stringify(v.message)})`;
  const entries = Object.entries(v).map(([k, x]) => `${k}: ${inner(x)}`).join(", ");
  const name = className(v);
  if (entries === "" && ownToString(v)) return `${name}(${String(v)})`;
  return `${name === "Object" ? "" : name}{${entries}}`;
}
