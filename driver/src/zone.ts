/**
 * Time zone names for the core's conversions. The core has no time zone database; the
 * runtime's `Intl` has one (Deno, Node, Bun and Workers all ship ICU). For a name `Intl`
 * knows, this hands the core the zone's offsets from 1900 to 2200 as data: the offset at
 * 1900-01-01, then every change, found by weekly samples and bisected to the second.
 */

const FROM = Date.UTC(1900, 0, 1);
const UNTIL = Date.UTC(2200, 0, 1);
const WEEK = 7 * 86_400_000;

const cache = new Map<string, Array<[number, number]> | null>();

/** `[fromUtcMillis, offsetSeconds]` pairs for a zone name, or null when `Intl` does not know it. */
export function zoneOffsets(name: string): Array<[number, number]> | null {
  if (!cache.has(name)) cache.set(name, computeOffsets(name));
  return cache.get(name)!;
}

function computeOffsets(name: string): Array<[number, number]> | null {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    return null;
  }
  const offsetAt = (utcMillis: number): number => {
    const field: Record<string, number> = {};
    for (const part of format.formatToParts(utcMillis)) field[part.type] = Number(part.value);
    const local = Date.UTC(field.year, field.month - 1, field.day, field.hour, field.minute, field.second);
    return Math.round((local - Math.floor(utcMillis / 1000) * 1000) / 1000);
  };
  const out: Array<[number, number]> = [[FROM, offsetAt(FROM)]];
  let offset = out[0][1];
  for (let t = FROM + WEEK; t <= UNTIL; t += WEEK) {
    const next = offsetAt(t);
    if (next === offset) continue;
    // The change lies in (t - WEEK, t]: bisect on whole seconds, where zones change.
    let low = (t - WEEK) / 1000;
    let high = t / 1000;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetAt(middle * 1000) === offset) low = middle;
      else high = middle;
    }
    out.push([high * 1000, next]);
    offset = next;
  }
  return out;
}

/**
 * The conversion settings with the offsets of a named `timeZone` added, which the core needs
 * to read and write local times in it. Fixed offsets (`+02:00`) and names `Intl` does not
 * know go to the core as they are: it reads the former and names the latter in its error.
 */
export function withZoneOffsets<T extends { timeZone?: string; timeZoneOffsets?: unknown }>(conversion: T | undefined): T | undefined {
  const name = conversion?.timeZone;
  if (conversion === undefined || typeof name !== "string" || conversion.timeZoneOffsets !== undefined) return conversion;
  const offsets = zoneOffsets(name);
  return offsets === null ? conversion : { ...conversion, timeZoneOffsets: offsets };
}
