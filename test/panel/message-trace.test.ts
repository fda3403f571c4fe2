import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../helpers/harness.js';
import { createOperator, withPassword } from '../helpers/panel.js';
import { panelPage, panelSignin } from '../helpers/panel-http.js';
import { routingTools } from '../helpers/routing.js';
import { SMPP_ENV } from '../helpers/smpp-suite.js';

/** The operator's trace page shows who accepted a message, each failed hand-off and the raw receipt. */
describeEngines('operator panel: the message trace in full', (engine) => {
  let h: Harness;
  let operator: string;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
    await createOperator(h, 'ops@example.com', 'operator pass 1');
    operator = (await panelSignin(h, 'ops@example.com', 'operator pass 1')).session!;
  });
  afterAll(() => h.close());
  const { carrier, route, finalMessage } = routingTools(() => h);
  const traced = async (ref: string) => {
    const page = String((await panelPage(h, operator, `/panel/operator/trace?by=reference&value=${ref}`)).body);
    return /<article data-reference="[^"]+">([\s\S]*?)<\/article>/.exec(page)![1].replace(/\s+/g, ' ');
  };

  it('lists the API key, the failed attempts with the answers, the raw receipt, and a panel send as the panel', async () => {
    const busy = await carrier({ answer: (_s, i) => (i === 0 ? { status: 0x08 } : 'accept') });
    const spare = await carrier({ receipt: () => ({ stat: 'UNDELIV', err: '001' }) });
    await route('525592', [busy.name, spare.name], 'priority');
    const a = await withPassword(h, await h.createAccount(10), 'account pass 1');
    const sent = await h.post('/sms/send', { numbers: '5592000001', message: 'Hola' }, a.apikey);
    const ref = sent.body.references[0].reference as string;
    await finalMessage(ref);
    const keyId = (
      await h.ctx.db.kysely.selectFrom('api_keys').select('id').where('account_id', '=', a.id).executeTakeFirstOrThrow()
    ).id;
    // A receipt can finalise the message before the hand-off's own record (its failed attempts, the connector that
    // took it) commits: wait for both.
    const failedAttempt = new RegExp(`hand-off failed [^<]* at ${busy.name}: 0x08 ${busy.name}: ESME_RSYSERR`);
    const article = await eventually(async () => {
      const text = await traced(ref);
      return failedAttempt.test(text) && text.includes(`routed to ${spare.name}`) ? text : null;
    }, 10_000);
    expect(article).toContain(`by API key ${keyId} (${a.apikey.slice(0, 8)}…)`);
    expect(article).not.toContain(a.apikey);
    expect(article).toContain(`routed to ${spare.name}: failover from ${busy.name}`);
    expect(article).toMatch(/receipt \d+ \(stat UNDELIV, err 001\)/);

    const account = (await panelSignin(h, a.email, a.password)).session!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(String((await panelPage(h, account, '/panel/send')).body))![1];
    const form = { _csrf: csrf, numbers: '5512000001', message: 'Hola' };
    expect((await h.request('POST', '/panel/send/submit', { headers: { cookie: account }, form })).status).toBe(303);
    const fromPanel = await eventually(() =>
      h.ctx.db.kysely
        .selectFrom('messages')
        .select('reference')
        .where('account_id', '=', a.id)
        .where('number', '=', '525512000001')
        .executeTakeFirst(),
    );
    expect(await traced(fromPanel.reference)).toContain(' by panel (');
  });
});
