import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../helpers/harness.js';
import { withPassword } from '../helpers/panel.js';
import { panelPage, panelSignin } from '../helpers/panel-http.js';
import { runCommands } from '../helpers/cli.js';
import { simulatedReply } from '../helpers/simulated-reply.js';
import { moRouteCommands } from '../../src/features/mo-routes/cli.js';

/** The Replies page: an account's replies, to its messages and through its MO routes, newest first, 50 a page. */
describeEngines('panel: the account’s replies', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { SIMULATOR_DLR_DELAY_MS: '10' } });
  });
  afterAll(() => h.close());
  const rowsOf = (body: string) => [...body.matchAll(/<tr data-reply="(\d+)">([\s\S]*?)<\/tr>/g)];
  const text = (row: string) =>
    row
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();

  it('lists matched and routed replies, newest first, not another account’s, and pages back 50 at a time', async () => {
    const a = await withPassword(h, await h.createAccount(10), 'account pass 1');
    const other = await h.createAccount(10);
    const sent = await h.post('/sms/send', { numbers: '5512000001', message: 'Tu cita es el lunes' }, a.apikey);
    const reference = sent.body.references[0].reference as string;
    expect((await simulatedReply(h, a.apikey, '5512000001', 'Confirmo <b>sí</b>')).status).toBe(200);
    await runCommands(
      h.ctx,
      [moRouteCommands],
      ['mo-routes', 'add', '--email', a.email, '--number', '55123', '--json'],
    );
    const routed = { number: '5512000002', response: 'Quiero info', to: '55123' };
    expect((await h.post('/simulator/replies', routed, a.apikey)).body.code).toBe('simulator_01');
    await h.post('/sms/send', { numbers: '5512000003', message: 'Hola' }, other.apikey);
    expect((await simulatedReply(h, other.apikey, '5512000003', 'Soy de otra cuenta')).status).toBe(200);

    const session = (await panelSignin(h, a.email, a.password)).session!;
    const page = await panelPage(h, session, '/panel/replies');
    expect(page.status).toBe(200);
    const body = String(page.body);
    expect(body.replace(/\s+/g, ' ')).toContain('href="/panel/replies" aria-current="page"');
    const rows = rowsOf(body).map((m) => text(m[2]));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(hora de la Ciudad de México\) \+525512000002 55123 Quiero info Ruta de entrada: 55123 · cualquiera$/,
    );
    expect(rows[1]).toContain(`+525512000001 Confirmo &lt;b&gt;sí&lt;/b&gt; ${reference} Tu cita es el lunes`);
    expect(body).not.toContain('Soy de otra cuenta');
    expect(body).not.toContain('rel="next"');

    // 55 more: the first page holds the 50 newest, the link leads to the rest.
    const now = Date.now();
    await h.ctx.db.kysely
      .insertInto('replies')
      .values(
        Array.from({ length: 55 }, (_, i) => ({
          account_id: a.id,
          message_id: 0,
          number: '525512000009',
          text: `respuesta ${i}`,
          received_at: now + i,
        })),
      )
      .execute();
    const first = String((await panelPage(h, session, '/panel/replies')).body);
    const firstRows = rowsOf(first);
    expect(firstRows).toHaveLength(50);
    expect(text(firstRows[0][2])).toContain('respuesta 54');
    const next = /href="(\/panel\/replies\?before=(\d+))" rel="next"/.exec(first)!;
    expect(next[2]).toBe(firstRows[49][1]);
    const second = String((await panelPage(h, session, next[1])).body);
    expect(rowsOf(second).map((m) => text(m[2]).replace(/^.*\(hora de la Ciudad de México\) /, ''))).toEqual([
      '+525512000009 respuesta 4',
      '+525512000009 respuesta 3',
      '+525512000009 respuesta 2',
      '+525512000009 respuesta 1',
      '+525512000009 respuesta 0',
      expect.stringContaining('Quiero info'),
      expect.stringContaining('Confirmo'),
    ]);
    expect(second).not.toContain('rel="next"');
    // A cursor that is not a reply id shows the newest page.
    expect(rowsOf(String((await panelPage(h, session, '/panel/replies?before=x')).body))).toHaveLength(50);
  });
});
