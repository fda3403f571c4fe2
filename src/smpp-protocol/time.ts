/**
 * SMPP 3.4 §7.1.1 times: absolute `YYMMDDhhmmsstnnp` (p `+`/`-`: nn quarter
 * hours ahead of or behind UTC) or relative `YYMMDDhhmmss000R` (from now).
 * Returns epoch ms, null for an empty field, or 'invalid'.
 */
export function smppTime(raw: unknown, now = Date.now()): number | null | 'invalid' {
  if (raw === undefined || raw === null || raw === '') return null;
  const text = String(raw);
  const m = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d)(\d\d)([+\-R])$/.exec(text);
  if (!m) return 'invalid';
  const [yy, mo, dd, hh, mi, ss, tenths, nn] = m.slice(1, 9).map(Number);
  if (m[9] === 'R') {
    const at = new Date(now);
    at.setUTCFullYear(at.getUTCFullYear() + yy, at.getUTCMonth() + mo, at.getUTCDate() + dd);
    return at.getTime() + ((hh * 60 + mi) * 60 + ss) * 1000;
  }
  if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 59 || nn > 48) return 'invalid';
  const utc = Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss, tenths * 100);
  const offset = nn * 15 * 60_000;
  return m[9] === '+' ? utc - offset : utc + offset;
}

const two = (n: number) => String(n).padStart(2, '0');

// Built once: building a formatter costs far more than formatting with it (every receipt formats two dates).
const MEXICO_CITY_MINUTE = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'America/Mexico_City',
  year: '2-digit',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** YYMMDDhhmm in Mexico City time, as receipts show dates. */
export function receiptDate(ms: number): string {
  const parts = MEXICO_CITY_MINUTE.formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return [get('year'), get('month'), get('day'), get('hour'), get('minute')].map(two).join('');
}
