/**
 * The string formats the registry supports, implemented here (ajv ships none without the
 * `ajv-formats` package, which the harness does not depend on). Pure and sandbox-safe.
 */
export const SUPPORTED_FORMATS = ['date-time', 'date', 'email', 'uri', 'uuid'] as const;
export type SupportedFormat = (typeof SUPPORTED_FORMATS)[number];

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** RFC 3339 full-date with a real calendar day (leap years included). */
function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

/** RFC 3339 date-time with a mandatory offset (`Z` or `+hh:mm`); leap second 60 accepted. */
function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (m === null || !isDate(m[1] ?? '')) return false;
  const hour = Number(m[2]);
  const minute = Number(m[3]);
  const second = Number(m[4]);
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  return true;
}

function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

/** An absolute URI: a scheme, a colon, and no whitespace or characters RFC 3986 excludes. */
function isUri(value: string): boolean {
  return URI.test(value);
}

function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Checker per supported format, as ajv `addFormat` takes them. */
export const FORMAT_CHECKERS: Readonly<Record<SupportedFormat, (value: string) => boolean>> = {
  'date-time': isDateTime,
  date: isDate,
  email: isEmail,
  uri: isUri,
  uuid: isUuid,
};

/** True when `format` is one of {@link SUPPORTED_FORMATS}. */
export function isSupportedFormat(format: string): format is SupportedFormat {
  return (SUPPORTED_FORMATS as readonly string[]).includes(format);
}
