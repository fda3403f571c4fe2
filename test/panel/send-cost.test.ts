import { beforeAll, expect, it } from 'vitest';
import { describePanel } from '../helpers/panel.js';
import { createSession, SESSION_COOKIE } from '../../src/panel/session.js';
import { runCommands } from '../helpers/cli.js';
import { priceCommands } from '../../src/features/prices/cli.js';

/** The Send page's cost counter prices each recipient as the send will (prefix prices included). */
describePanel('panel send cost by destination', { over: 'http', env: { CARRIER_POLL_MS: '50' } }, (panel) => {
  let cookie: string;
  beforeAll(async () => {
    const { h } = panel;
    cookie = `${SESSION_COOKIE}=${await createSession(h.ctx.db.kysely, 'account', (await h.createAccount(10)).id, 1)}`;
  });

  it('sums the per-destination prices of the typed numbers', async () => {
    const { h } = panel;
    const set = await runCommands(
      h.ctx,
      [priceCommands],
      ['prices', 'set', '--channel', 'sms', '--prefix', '5233', '--credits', '0.25'],
    );
    expect(set.error).toBeUndefined();
    await new Promise((r) => setTimeout(r, 80));
    const got = await h.request('GET', '/panel/send', { headers: { cookie } });
    const page = got.body as string;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1];
    const reply = await h.request('POST', '/panel/send/preview', {
      headers: { cookie },
      form: { _csrf: csrf, numbers: '3312345678, 5512345678, 3312345679', message: 'Hola' },
    });
    expect(reply.status).toBe(200);
    const body = typeof reply.body === 'string' ? JSON.parse(reply.body) : reply.body;
    expect(body).toMatchObject({ recipients: 3, cost: '1.5' });
  });
});
