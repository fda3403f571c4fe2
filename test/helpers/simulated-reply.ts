import { eventually, type Harness } from './harness.js';

/**
 * POST /simulator/replies once the account's queued messages to that number
 * are handed over: the simulator answers only messages it carried, and a
 * send's hand-off may still be under way when its request has answered.
 */
export async function simulatedReply(
  h: Harness,
  apikey: string,
  number: string,
  response: string,
  countryCode = '52',
): Promise<Awaited<ReturnType<Harness['post']>>> {
  const full = number.length === 10 ? `${countryCode}${number}` : number;
  await eventually(async () => {
    const queued = await h.ctx.db.kysely
      .selectFrom('messages')
      .select('id')
      .where('number', '=', full)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return queued === undefined;
  }, 15_000);
  return h.post('/simulator/replies', { number, response }, apikey);
}
