import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Harness } from '../../test/helpers/harness.js';
import { smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const haveKannel = existsSync(BEARERBOX) && existsSync(SMSBOX);
if (!haveKannel) console.warn(`Kannel is not installed (${BEARERBOX}): the Kannel gateway test does not run`);

async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * The `smsc = smpp` group exactly as docs/operators/smpp-server.md shows it, with this test's address and user:
 * what an operator copies is what is tested.
 */
function documentedSmsc(p: Record<string, number>, user: { systemId: string; password: string }): string {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/operators/smpp-server.md'), 'utf8');
  const block = /```\n(group = smsc\n[\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/operators/smpp-server.md has no `group = smsc` example');
  const values: Record<string, string> = {
    host: '127.0.0.1',
    port: String(p.smpp),
    'smsc-username': user.systemId,
    'smsc-password': user.password,
  };
  return block[1].replace(/^([a-z-]+) = .*$/gm, (line, key: string) =>
    key in values ? `${key} = ${values[key]}` : line,
  );
}

/** Kannel's configuration: a bearerbox whose `smsc = smpp` group (the documented one) binds to our SMPP server, and an smsbox. */
function kannelConfig(dir: string, p: Record<string, number>, user: { systemId: string; password: string }): string {
  return `group = core
admin-port = ${p.admin}
admin-password = admin
smsbox-port = ${p.smsbox}
box-allow-ip = 127.0.0.1
log-file = "${dir}/bearerbox.log"
log-level = 0
dlr-storage = internal

${documentedSmsc(p, user)}
group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${p.smsbox}
sendsms-port = ${p.sendsms}
log-file = "${dir}/smsbox.log"
log-level = 0

group = sendsms-user
username = tester
password = foobar

group = sms-service
keyword = default
get-url = "http://127.0.0.1:${p.hooks}/mo?from=%p&text=%a"
`;
}

(haveKannel ? describe : describe.skip)('SMPP server: Kannel as a customer gateway [sqlite]', () => {
  let h: Harness & { smppPort: number };
  let dir: string;
  const boxes: ChildProcess[] = [];
  const hooks: string[] = [];
  let hookServer: http.Server;
  let ports: Record<string, number>;

  beforeAll(async () => {
    h = await startSmppHarness('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'mensajero-kannel-'));
    hookServer = http.createServer((req, res) => {
      hooks.push(req.url ?? '');
      res.end('');
    });
    await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
    ports = {
      smpp: h.smppPort,
      admin: await freePort(),
      smsbox: await freePort(),
      sendsms: await freePort(),
      hooks: (hookServer.address() as AddressInfo).port,
    };
    const c = await smppCustomer(h, 100, { systemId: 'kannel1', password: 'k4nnel01' });
    writeFileSync(join(dir, 'kannel.conf'), kannelConfig(dir, ports, c));
    boxes.push(spawn(BEARERBOX, [join(dir, 'kannel.conf')], { stdio: 'ignore' }));
    await eventually(
      async () => (await h.ctx.db.kysely.selectFrom('smpp_binds').select('slot').execute()).length > 0,
      20_000,
    );
    boxes.push(spawn(SMSBOX, [join(dir, 'kannel.conf')], { stdio: 'ignore' }));
  }, 60_000);
  afterAll(async () => {
    for (const b of boxes) b.kill('SIGKILL');
    hookServer?.close();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sendsms reaches our reports with its text, the dlr-url hears delivered with our reference, a reply reaches the sms-service', async () => {
    // %F: the id the SMSC gave (our submit_sm_resp message_id), as Kannel matched the receipt to it.
    const dlrUrl = `http://127.0.0.1:${ports.hooks}/dlr?status=%d&to=%p&id=%F`;
    const query = new URLSearchParams({
      username: 'tester',
      password: 'foobar',
      from: 'MENSAJERO',
      to: '525512345678',
      text: 'Hola desde Kannel',
      'dlr-mask': '3',
      'dlr-url': dlrUrl,
    });
    await eventually(
      async () => {
        try {
          const r = await fetch(`http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms?${query}`);
          return r.status === 202;
        } catch {
          return false;
        }
      },
      20_000,
      250,
    );
    const row = await eventually(
      () =>
        h.ctx.db.kysely.selectFrom('messages').selectAll().where('text', '=', 'Hola desde Kannel').executeTakeFirst(),
      20_000,
    );
    expect(row.number).toBe('525512345678');
    const dlr = await eventually(async () => hooks.find((u) => u.startsWith('/dlr?status=1&')), 20_000);
    expect(new URLSearchParams(dlr.slice('/dlr?'.length)).get('id')).toBe(row.reference);
    const account = await h.ctx.db.kysely
      .selectFrom('accounts')
      .select('id')
      .where('id', '=', row.account_id)
      .executeTakeFirstOrThrow();
    const key = (
      await h.ctx.db.kysely
        .selectFrom('smpp_users')
        .select('account_id')
        .where('system_id', '=', 'kannel1')
        .executeTakeFirstOrThrow()
    ).account_id;
    expect(Number(key)).toBe(Number(account.id));
    const { recordReply } = await import('../messaging/replies.js');
    await recordReply(h.ctx, {
      accountId: Number(account.id),
      number: '525512345678',
      text: 'Gracias',
      at: Date.now(),
    });
    await eventually(async () => hooks.some((u) => u.startsWith('/mo?') && u.includes('Gracias')), 20_000);
  }, 90_000);
});
