/**
 * DataStax's encoder takes numeric strings for numeric columns of a prepared statement
 * ("5" for an int, "5" for a bigint or varint, "1.5" for a double), as code passing HTTP
 * query parameters relies on; cqlwire's codec refuses them. Only after the codec has refused a
 * statement's values are its bind types looked up and such strings turned into numbers, when
 * that loses nothing: the path that works costs nothing. The lossy conversions DataStax also
 * makes (5.5 into an int truncated, any truthy value as a boolean `true`) stay refused.
 */
const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function coerce(type: string, value: unknown): unknown {
  if (typeof value !== "string") return value;
  switch (type) {
    case "int":
    case "smallint":
    case "tinyint":
      return INTEGER.test(value) ? Number(value) : value;
    case "bigint":
    case "counter":
    case "varint":
      return INTEGER.test(value) ? BigInt(value) : value;
    case "float":
    case "double":
      return DECIMAL.test(value) ? Number(value) : value;
    default:
      return value;
  }
}

type Params = unknown[] | Record<string, unknown>;

/** `params` with numeric strings converted by their bind types; null when none changed. */
export function coerceNumericStrings(columns: ReadonlyArray<{ name: string; type: string }>, params: Params): Params | null {
  let changed = false;
  const one = (type: string | undefined, v: unknown) => {
    const c = type === undefined ? v : coerce(type, v);
    if (c !== v) changed = true;
    return c;
  };
  let out: Params;
  if (Array.isArray(params)) out = params.map((v, i) => one(columns[i]?.type, v));
  else {
    const types = new Map(columns.map((c) => [c.name.toLowerCase(), c.type]));
    out = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, one(types.get(k.toLowerCase()), v)]));
  }
  return changed ? out : null;
}
