import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

describeEngines('SMPP carriers end to end', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { unique, cli, carrier, send, message } = smppTools(() => h);

  it('closes only the session that got a hostile PDU, rebinds, and keeps sending', async () => {
    const { smsc, name } = await carrier({}, ['--enquire-link-seconds', '1'], { prefix: '525524' });
    const binds = smsc.bindCount;
    // A command_length far above the maximum, then a truncated deliver_sm.
    smsc.sendRaw(Buffer.from('ffffffff0000000500000000000000010000', 'hex'));
    await eventually(async () => smsc.bindCount > binds && h.ctx.carriers.manager.connector(name)?.available, 10_000);
    const before = smsc.bindCount;
    smsc.sendRaw(Buffer.from('0000001400000005000000000000000700', 'hex'));
    smsc.sendRaw(Buffer.from('000000110000000500000000000000070001', 'hex'));
    await eventually(async () => smsc.bindCount > before && h.ctx.carriers.manager.connector(name)?.available, 10_000);
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5524000001');
    await eventually(async () => (await message(ref)).stage === 1);
    await eventually(async () => smsc.enquireLinks > 0, 5000);
    const status = (await cli('carriers', 'status')).carriers.find((c: { name: string }) => c.name === name);
    expect(status.errors).toBeGreaterThanOrEqual(2);
    expect(status.last_error).toMatch(/PDU|closed|error/i);
    const metrics = (await h.get('/metrics')).body as string;
    expect(metrics).toContain(`mensajero_carrier_state{carrier="${name}",state="bound"} 1`);
    expect(metrics).toMatch(new RegExp(`mensajero_carrier_messages\\{carrier="${name}",kind="errors"\\} [2-9]`));
  });

  it('binds over TLS, verifying the SMSC certificate against --tls-ca, and stays down when it cannot verify it', async () => {
    const tlsDir = resolve(import.meta.dirname, '../../../test/helpers/tls');
    const tls = {
      key: readFileSync(join(tlsDir, 'smsc-key.pem'), 'utf8'),
      cert: readFileSync(join(tlsDir, 'smsc-cert.pem'), 'utf8'),
    };
    const { smsc } = await carrier({ tls }, ['--tls', '--tls-ca', join(tlsDir, 'smsc-cert.pem')], { prefix: '525526' });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5526000001');
    await eventually(async () => (await message(ref)).stage === 1);
    expect(smsc.submitted.map((s) => s.destination)).toEqual(['525526000001']);
    const unverified = unique('tls');
    await cli(
      'carriers',
      'add',
      'smpp',
      '--name',
      unverified,
      '--host',
      '127.0.0.1',
      '--port',
      String(smsc.port),
      '--system-id',
      'acme',
      '--password',
      'secret1',
      '--tls',
    );
    const status = await eventually(
      async () =>
        (await cli('carriers', 'status')).carriers.find(
          (c: { name: string; last_error: string | null }) => c.name === unverified && c.last_error,
        ),
      10_000,
    );
    expect(status.state).toBe('connecting');
    expect(status.last_error).toMatch(/certificate/i);
    await cli('carriers', 'remove', '--name', unverified);
  });

  it('keeps the password out of every CLI answer, and rebinds within seconds after carriers set', async () => {
    const { smsc, name } = await carrier({ systemId: undefined, password: 'newpass' }, ['--password', 'newpass']);
    const listed = await cli('carriers', 'list');
    expect(JSON.stringify(listed)).not.toContain('newpass');
    const row = await h.ctx.db.kysely
      .selectFrom('carriers')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    expect(row.password_enc).not.toContain('newpass');
    const changed = await cli('carriers', 'set', '--name', name, '--system-id', 'acme2', '--window', '20');
    expect(changed).toMatchObject({ name, type: 'smpp', system_id: 'acme2', window: 20, enabled: true });
    expect(JSON.stringify(changed)).not.toContain('newpass');
    await eventually(
      async () => smsc.systemIds.includes('acme2') && h.ctx.carriers.manager.connector(name)?.available,
      10_000,
    );
    expect(smsc.unbinds).toBeGreaterThanOrEqual(1);
    expect(await cli('carriers', 'disable', '--name', name)).toMatchObject({ enabled: false });
    await eventually(async () => smsc.binds === 0);
    expect((await cli('carriers', 'status')).carriers.find((c: { name: string }) => c.name === name).state).toBe(
      'disabled',
    );
    expect(await cli('carriers', 'remove', '--name', name)).toEqual({ removed: true });
    expect((await cli('carriers', 'list')).carriers.map((c: { name: string }) => c.name)).not.toContain(name);
  });
});
