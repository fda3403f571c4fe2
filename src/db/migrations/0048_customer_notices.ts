import type { Kysely } from 'kysely';

/**
 * smpp_deliveries keeps what to tell a customer (`notice`: a receipt's or a
 * reply's facts) instead of the deliver_sm rendered for it (`pdu`): the SMPP
 * server renders it when it sends (src/smpp-server/notices.ts). Rows waiting
 * at the upgrade are converted exactly: a rendered receipt's text is read back
 * (its dates are to the minute, as it writes them again), a reply's fields
 * are renamed. Self-contained, as every migration: it imports no code that
 * later versions may change.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('smpp_deliveries').renameColumn('pdu', 'notice').execute();
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('smpp_deliveries')
      .select(['id', 'kind', 'notice'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(1000)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      const notice = row.kind === 'receipt' ? receiptNotice(row.notice) : replyNotice(row.notice);
      await db
        .updateTable('smpp_deliveries')
        .set({ notice: JSON.stringify(notice) })
        .where('id', '=', row.id)
        .execute();
    }
    after = Number(rows[rows.length - 1].id);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  // Waiting receipts and replies would be sent in the new shape by no one: an older version needs its own.
  await db.deleteFrom('smpp_deliveries').execute();
  await db.schema.alterTable('smpp_deliveries').renameColumn('notice', 'pdu').execute();
}

interface RenderedDeliverSm {
  source_addr: string;
  destination_addr: string;
  text: string;
  receipted_message_id?: string;
}

function receiptNotice(pdu: string) {
  const q = JSON.parse(pdu) as RenderedDeliverSm;
  const m = /^id:(\S*) sub:\d+ dlvrd:\d+ submit date:(\d{10}) done date:(\d{10}) stat:\S+ err:(\d+) text:(.*)$/s.exec(
    q.text,
  );
  if (!m) throw new Error(`smpp_deliveries: a receipt whose text is not ours: ${q.text.slice(0, 40)}`);
  return {
    message_id: q.receipted_message_id ?? m[1],
    number: q.source_addr,
    address: q.destination_addr,
    text: m[5],
    submitted_at: mexicoCityMinute(m[2]),
    done_at: mexicoCityMinute(m[3]),
    code: Number(m[4]),
  };
}

function replyNotice(pdu: string) {
  const q = JSON.parse(pdu) as RenderedDeliverSm;
  return { number: q.source_addr, address: q.destination_addr, text: q.text };
}

/** YYMMDDhhmm in Mexico City time → epoch ms of that minute (UTC-6; UTC-5 where summer time applied). */
function mexicoCityMinute(v: string): number {
  const [yy, mo, dd, hh, mi] = [0, 2, 4, 6, 8].map((i) => Number(v.slice(i, i + 2)));
  for (const offset of [6, 5]) {
    const at = Date.UTC(2000 + yy, mo - 1, dd, hh + offset, mi);
    if (minuteIn(at) === v) return at;
  }
  return Date.UTC(2000 + yy, mo - 1, dd, hh + 6, mi);
}

function minuteIn(ms: number): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'America/Mexico_City',
    year: '2-digit',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const get = (type: string) => (parts.find((p) => p.type === type)?.value ?? '00').padStart(2, '0');
  return ['year', 'month', 'day', 'hour', 'minute'].map(get).join('');
}
