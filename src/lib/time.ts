/**
 * The spec's times are wall-clock times in America/Mexico_City. Conversions
 * use the platform's time-zone database (Intl), never a fixed offset.
 */
export const ZONE = 'America/Mexico_City';

type Parts = Readonly<{ year: string; month: string; day: string; hour: string; minute: string; second: string }>;

/** Made on first use: building it loads the zone's data, a cost every CLI command paid at start-up. */
let partsFormatter: Intl.DateTimeFormat | undefined;
const formatter = () =>
  (partsFormatter ??= new Intl.DateTimeFormat('en-US', {
    timeZone: ZONE,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }));

/**
 * The wall-clock parts of the seconds formatted last: a busy process formats
 * the same few seconds (now, an expiry) many times, and formatToParts costs
 * more than the rest of a point query.
 */
const RECENT = 64;
const recent = new Map<number, Parts>();

function zonedParts(ms: number): Parts {
  const second = Math.floor(ms / 1000);
  let parts = recent.get(second);
  if (parts) return parts;
  const p: Record<string, string> = {};
  for (const { type, value } of formatter().formatToParts(new Date(ms))) p[type] = value;
  parts = p as Parts;
  if (recent.size >= RECENT) recent.delete(recent.keys().next().value!);
  recent.set(second, parts);
  return parts;
}

/** YYYY-MM-DD HH:mm:ss in Mexico City time. */
export function formatLocal(ms: number): string {
  const p = zonedParts(ms);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** YYYYMMDDHHMMSS in Mexico City time (webhook events). */
export function formatCompact(ms: number): string {
  const p = zonedParts(ms);
  return `${p.year}${p.month}${p.day}${p.hour}${p.minute}${p.second}`;
}

/** YYYY-MM-DD in Mexico City time. */
export function formatLocalDate(ms: number): string {
  return formatLocal(ms).slice(0, 10);
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/**
 * Parses YYYY-MM-DD HH:mm:ss (or YYYY-MM-DD, midnight) as Mexico City wall time.
 * Returns epoch ms, or null when malformed or not a real calendar time.
 */
export function parseLocal(text: string): number | null {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1);
  const fields = [+y, +mo, +d, +h, +mi, +s];
  const asUtc = utc(fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]);
  const check = new Date(asUtc);
  if (
    check.getUTCMonth() !== fields[1] - 1 ||
    check.getUTCDate() !== fields[2] ||
    fields[3] > 23 ||
    fields[4] > 59 ||
    fields[5] > 59
  ) {
    return null;
  }
  // Find the instant whose Mexico City wall time equals the given fields.
  let guess = asUtc - offsetMs(asUtc);
  guess = asUtc - offsetMs(guess);
  return guess;
}

/** Epoch ms of a UTC calendar time (month 1–12). Date.UTC reads years 0–99 as 1900–1999, so the year is set on its own. */
function utc(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const d = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  d.setUTCFullYear(year, month - 1, day);
  return d.getTime();
}

/** Zone offset (local - UTC) at an instant, in ms. */
function offsetMs(ms: number): number {
  const p = zonedParts(ms);
  const local = utc(+p.year, +p.month, +p.day, +p.hour, +p.minute, +p.second);
  return local - Math.floor(ms / 1000) * 1000;
}
