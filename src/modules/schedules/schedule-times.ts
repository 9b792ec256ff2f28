/**
 * The times of a schedule as people give them: an instant with its offset, or a wall-clock time
 * with the IANA zone it is meant in (the offset then is the one in force on that day, so a
 * schedule across a daylight-saving change lands at the hour meant). Stored in UTC.
 */
import { invalidField } from '../../errors.js';
import { isTimeZone, isWallTime, wallTimeToInstant } from '../../shared/time-zones.js';

const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Checks a zone name (null when none was given). */
export function zoneOf(timeZone: string | undefined): string | null {
  if (timeZone === undefined) return null;
  if (!isTimeZone(timeZone)) {
    throw invalidField(
      'timeZone',
      `"${timeZone}" is not an IANA time zone (e.g. Europe/Berlin, America/New_York)`,
    );
  }
  return timeZone;
}

/** A time of the request as a UTC instant, which must lie after `after`. */
export function instantOf(
  field: string,
  text: string,
  zone: string | null,
  after: Date,
  afterWhat: string,
): Date {
  let instant: Date | null;
  if (WITH_OFFSET.test(text)) {
    instant = new Date(text);
  } else if (isWallTime(text)) {
    if (zone === null) {
      throw invalidField(field, `"${text}" has no offset: add one (…+02:00, Z) or give timeZone`);
    }
    instant = wallTimeToInstant(text, zone);
    if (instant === null) {
      throw invalidField(field, `${text} does not exist in ${zone}: the clocks go forward over it that day`);
    }
  } else {
    throw invalidField(
      field,
      'must be a time like 2027-03-28T09:00:00+02:00, or 2027-03-28T09:00 with timeZone',
    );
  }
  if (Number.isNaN(instant.getTime())) throw invalidField(field, `"${text}" is not a valid time`);
  if (instant.getTime() <= after.getTime()) throw invalidField(field, `must be after ${afterWhat}`);
  return instant;
}
