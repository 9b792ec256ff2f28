/**
 * Wall-clock times in IANA time zones, with nothing but Intl: what a person means by "9:00 in
 * Berlin" as a UTC instant, and an instant as that zone's wall clock with its offset. A day that
 * changes the clocks is the reason this exists: the offset is the one in force at that instant.
 */

/** Whether the runtime knows the zone (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const formatterOf = (zone: string) => {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
};

/** The wall clock of `zone` at an instant, as UTC-based milliseconds of the same fields. */
function wallMs(instant: number, zone: string): number {
  const parts = Object.fromEntries(
    formatterOf(zone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  return Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
}

/** The zone's offset from UTC at an instant, in minutes (Berlin in summer: 120). */
export const offsetMinutes = (instant: number, zone: string): number =>
  Math.round((wallMs(instant, zone) - Math.floor(instant / 1000) * 1000) / 60_000);

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Whether a text is a wall-clock time without an offset (`2027-03-28T09:00`). */
export const isWallTime = (text: string): boolean => WALL_TIME.test(text);

/**
 * The instant a wall-clock time names in a zone. A time the clocks skip (02:30 on the spring-
 * forward day) is null; a time that happens twice (autumn) is its first occurrence.
 */
export function wallTimeToInstant(text: string, zone: string): Date | null {
  const m = WALL_TIME.exec(text);
  if (m === null) return null;
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0));
  // Of the offsets in force a day either side, the earliest instant whose wall clock matches.
  const candidates = new Set([
    offsetMinutes(wall - 86_400_000, zone),
    offsetMinutes(wall, zone),
    offsetMinutes(wall + 86_400_000, zone),
  ]);
  const matching = [...candidates]
    .map((offset) => wall - offset * 60_000)
    .filter((instant) => wallMs(instant, zone) === wall)
    .sort((a, b) => a - b);
  return matching.length === 0 ? null : new Date(matching[0]!);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant as the zone's wall clock with its offset: `2027-03-28T09:00:00+02:00`. */
export function formatInZone(instant: Date | string, zone: string): string {
  const ms = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  const offset = offsetMinutes(ms, zone);
  const wall = new Date(wallMs(ms, zone)).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  return `${wall}${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}
