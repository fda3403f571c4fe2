import { beforeAll, expect, it } from 'vitest';
import { describePanel } from '../helpers/panel.js';
import { createSession, SESSION_COOKIE } from '../../src/panel/session.js';
import { runCommands } from '../helpers/cli.js';
import { accountCommands } from '../../src/features/accounts/cli.js';
import type { TestAccount } from '../helpers/harness.js';

/** The Send page follows the account's long and Unicode SMS settings: its counter and cost, and the send. */
describePanel('panel send with long and Unicode SMS', { over: 'http' }, (panel) => {
  let cookie: string;
  let account: TestAccount;
  beforeAll(async () => {
    const { h } = panel;
    account = await h.createAccount(10);
    cookie = `${SESSION_COOKIE}=${await createSession(h.ctx.db.kysely, 'account', account.id, 1)}`;
  });

  async function csrf(): Promise<string> {
    const page = (await panel.h.request('GET', '/panel/send', { headers: { cookie } })).body as string;
    return /name="_csrf" value="([^"]+)"/.exec(page)![1];
  }
  async function preview(message: string) {
    const reply = await panel.h.request('POST', '/panel/send/preview', {
      headers: { cookie },
      form: { _csrf: await csrf(), numbers: '5512345678, 5512345679', message },
    });
    expect(reply.status).toBe(200);
    return typeof reply.body === 'string' ? JSON.parse(reply.body) : reply.body;
  }
  const set = (...flags: string[]) =>
    runCommands(panel.h.ctx, [accountCommands], ['accounts', 'set', '--email', account.email, ...flags]);

  it('off: 160 GSM-7 characters, replaced; on: the parts the send is charged for, the text kept', async () => {
    const long = 'x'.repeat(300);
    expect(await preview('Hola ☺')).toMatchObject({ max: 160, text: 'Hola ?', cost: '2' });
    expect(await preview(long)).toMatchObject({ length: 300, max: 160 });
    await set('--long-sms', 'on', '--unicode', 'on');
    expect(await preview(long)).toMatchObject({ length: 300, max: 1530, cost: '4' });
    expect(await preview('Hola ☺')).toMatchObject({ length: 6, max: 670, text: 'Hola ☺', changed: [], cost: '2' });
    const sent = await panel.h.request('POST', '/panel/send/submit', {
      headers: { cookie },
      form: { _csrf: await csrf(), numbers: '5512345678', message: long },
    });
    expect(sent.status).toBeLessThan(400);
    const credit = (await panel.h.post('/credits/consult', {}, account.apikey)).body.credit;
    expect(credit).toBe(8);
  });
});
