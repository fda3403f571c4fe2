import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOperator, describePanel, panelSession } from '../helpers/panel.js';
import { ask, bindClient, closed, smppCustomer } from '../helpers/smpp-server.js';
import { eventually } from '../helpers/harness.js';
import { gsmSeptets } from '../../src/smpp-protocol/encoding.js';
import { Registry } from 'prom-client';
import { SmppServer } from '../../src/smpp-server/listener.js';
import type { Metrics } from '../../src/metrics/metrics.js';
import { createSession, SESSION_COOKIE } from '../../src/panel/session.js';

const NOTICE = /<p class="notice" role="status">([^<]*)<\/p>/;
const ALERT = /<p class="error" role="alert">([^<]*)<\/p>/;
const env = { SMPP_SERVER_PORT: '0', SMPP_SERVER_HOST: '127.0.0.1' };

interface ShownBind {
  systemId: string;
  slot: string;
  cells: string[];
  since: string;
}

/** The rows of the operator view's SMPP binds table: the cells and the close form's fields. */
const bindRows = (body: string): ShownBind[] =>
  [...body.matchAll(/<tr data-system-id="([^"]+)" data-slot="(\d+)">([\s\S]*?)<\/tr>/g)].map(
    ([, systemId, slot, row]) => ({
      systemId,
      slot,
      cells: [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1].replace(/<[^>]*>/g, '').trim()),
      since: /name="since" value="(\d+)"/.exec(row)![1],
    }),
  );

/** The operator view's live SMPP binds across the deployment, and closing one. */
describePanel('panel: customers’ SMPP binds in the operator view', { over: 'http', env }, (panel) => {
  let ops: { cookie: string; csrf: string };
  /** A second SMPP listener on the same database: another holder, as another process would be. */
  let other: SmppServer;
  let otherPort: number;
  beforeAll(async () => {
    await createOperator(panel.h, `ops-${panel.engine}@example.com`, 'operator secret 9');
    ops = await panelSession(panel.h, `ops-${panel.engine}@example.com`, 'operator secret 9');
    // Its own metrics registry, as another process has.
    const metrics = { registry: new Registry(), beforeScrape: [] } as unknown as Metrics;
    other = new SmppServer({ ...panel.h.ctx, metrics }, { renewMs: 200 });
    otherPort = (await other.listen()).port!;
  });
  afterAll(() => other?.close());

  const operatorPage = async () =>
    (await panel.h.request('GET', '/panel/operator', { headers: { cookie: ops.cookie } })).body as string;
  const close = (form: Record<string, string>, cookie = ops.cookie, csrf = ops.csrf) =>
    panel.h.request('POST', '/panel/operator/close-bind', { headers: { cookie }, form: { _csrf: csrf, ...form } });

  it('lists every live bind: system id, account, bind type, address, process, since and counters', async () => {
    const { h } = panel;
    const c = await smppCustomer(h, 10);
    const here = await bindClient(h.smpp!.port!, c.systemId, c.password, 'transceiver');
    const there = await bindClient(otherPort, c.systemId, c.password, 'receiver');
    expect([here.status, there.status]).toEqual([0, 0]);
    const sent = await ask(here.session, 'submit_sm', {
      destination_addr: '525512345678',
      dest_addr_ton: 1,
      short_message: Buffer.from(gsmSeptets('contado')),
    });
    expect(sent.command_status).toBe(0);
    // Counters reach the bind's row at its holder's next renewal (every second).
    const rows = await eventually(async () => {
      const shown = bindRows(await operatorPage()).filter((r) => r.systemId === c.systemId);
      return shown.length === 2 && shown.some((r) => r.cells[6] === '1') && shown;
    }, 10_000);
    const cells = rows.map((r) => r.cells.slice(0, 5).concat(r.cells.slice(6, 8)));
    expect(cells).toContainEqual([c.systemId, c.email, 'transceptor', '127.0.0.1', h.smpp!.server.holder, '1', '0']);
    expect(cells).toContainEqual([c.systemId, c.email, 'receptor', '127.0.0.1', other.holder, '0', '0']);
    for (const r of rows)
      expect(r.cells[5]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(hora de la Ciudad de México\)$/);
    for (const s of [here.session, there.session]) s.close();
  });

  it('closes one bind in the process that holds it; the others stay open', async () => {
    const { h } = panel;
    const c = await smppCustomer(h, 10);
    const here = await bindClient(h.smpp!.port!, c.systemId, c.password, 'transmitter');
    const there = await bindClient(otherPort, c.systemId, c.password, 'receiver');
    const shown = bindRows(await operatorPage()).filter((r) => r.systemId === c.systemId);
    const target = shown.find((r) => r.cells[2] === 'receptor')!;
    const form = { system_id: c.systemId, slot: target.slot, since: target.since };

    expect((await close(form, ops.cookie, 'forged')).status).toBe(403);
    const done = await close(form);
    expect(done.status).toBe(303);
    const after = (await panel.h.request('GET', done.headers.location as string, { headers: { cookie: ops.cookie } }))
      .body as string;
    expect(NOTICE.exec(after)?.[1]).toBe('Conexión cerrada: el proceso que la tenía la cierra en un segundo.');
    await closed(there.session);
    expect((await ask(here.session, 'enquire_link')).command_status).toBe(0);
    expect(
      bindRows(await operatorPage())
        .filter((r) => r.systemId === c.systemId)
        .map((r) => r.cells[2]),
    ).toEqual(['transmisor']);

    const again = await close(form);
    expect(again.status).toBe(404);
    expect(ALERT.exec(again.body)?.[1]).toBe('Esa conexión ya no está abierta.');
    here.session.close();
  });

  it('refuses a malformed or stale bind, and accounts', async () => {
    const { h } = panel;
    const c = await smppCustomer(h, 10);
    const open = await bindClient(h.smpp!.port!, c.systemId, c.password, 'transmitter');
    const [row] = bindRows(await operatorPage()).filter((r) => r.systemId === c.systemId);
    const base = { system_id: c.systemId, slot: row.slot, since: row.since };
    for (const bad of [
      { ...base, slot: 'x' },
      { ...base, slot: '-1' },
      { ...base, since: '1e3' },
      { ...base, since: String(Number(row.since) - 1) },
      { ...base, system_id: 'no such user' },
      { ...base, system_id: 'x'.repeat(5000) },
    ]) {
      const refused = await close(bad);
      expect(refused.status, JSON.stringify(bad).slice(0, 80)).toBe(404);
    }
    const account = await h.createAccount(1);
    const cookie = `${SESSION_COOKIE}=${await createSession(h.ctx.db.kysely, 'account', account.id, 1)}`;
    const page = (await h.request('GET', '/panel/integrations', { headers: { cookie } })).body as string;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1];
    expect((await close(base, cookie, csrf)).status).toBe(403);
    expect((await ask(open.session, 'enquire_link')).command_status).toBe(0);
    expect(bindRows(await operatorPage()).filter((r) => r.systemId === c.systemId)).toHaveLength(1);
    open.session.close();
  });

  it('says so when no customer is bound', async () => {
    const { h } = panel;
    const c = await smppCustomer(h, 10);
    const open = await bindClient(h.smpp!.port!, c.systemId, c.password, 'transmitter');
    expect(await operatorPage()).toContain('data-testid="smpp-binds"');
    open.session.close();
    // Every test closed its sessions: once their binds are released, the card says nobody is bound.
    await eventually(async () => (await operatorPage()).includes('Ningún cliente está conectado por SMPP.'), 10_000);
  });
});
