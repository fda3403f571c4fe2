import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../test/helpers/harness.js';
import { ask, connectClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';

const tlsDir = resolve(import.meta.dirname, '../../test/helpers/tls');

describeEngines('SMPP server: TLS listener and metrics', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startSmppHarness(engine, {
      env: {
        SMPP_SERVER_TLS_PORT: '0',
        SMPP_SERVER_TLS_CERT: join(tlsDir, 'smsc-cert.pem'),
        SMPP_SERVER_TLS_KEY: join(tlsDir, 'smsc-key.pem'),
      },
    });
  });
  afterAll(() => h.close());

  it('binds and submits over TLS on SMPP_SERVER_TLS_PORT; /metrics counts per system id', async () => {
    const c = await smppCustomer(h);
    const session = await connectClient(h.smpp!.tlsPort!, true);
    expect((session.socket as import('node:tls').TLSSocket).encrypted).toBe(true);
    const bind = await ask(session, 'bind_transceiver', { system_id: c.systemId, password: c.password });
    expect(bind.command_status).toBe(0);
    const resp = await ask(session, 'submit_sm', {
      destination_addr: '525512345678',
      dest_addr_ton: 1,
      short_message: Buffer.from(gsmSeptets('over tls')),
    });
    expect(resp.command_status).toBe(0);
    const metrics = await h.ctx.metrics.render();
    expect(metrics).toContain(`mensajero_smpp_server_binds_total{system_id="${c.systemId}",status="0"} 1`);
    expect(metrics).toContain(`mensajero_smpp_server_submits_total{system_id="${c.systemId}",status="0"} 1`);
    expect(metrics).toMatch(/mensajero_smpp_server_waiting\{kind="receipt"\} \d+/);
    session.close();
  });

  it('refuses a TLS port without its certificate and key at start', async () => {
    await expect(startSmppHarness(engine, { env: { SMPP_SERVER_TLS_PORT: '0' } })).rejects.toThrow(
      /SMPP_SERVER_TLS_CERT/,
    );
  });
});
