import { join, resolve } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv, type CliEnv } from '../../test/helpers/cli.js';
import { closedPort, doctor, holdPort } from '../../test/helpers/doctor.js';
import { startSmppHarness } from '../../test/helpers/smpp-server.js';
import type { Harness } from '../../test/helpers/harness.js';
import { checkCertificate, smppAnswers } from './smpp.js';

const tlsDir = resolve(import.meta.dirname, '../../test/helpers/tls');
const CERT = join(tlsDir, 'smsc-cert.pem');
const KEY = join(tlsDir, 'smsc-key.pem');
const EXPIRED_CERT = join(tlsDir, 'expired-cert.pem');
const EXPIRED_KEY = join(tlsDir, 'expired-key.pem');

describe("mensajero doctor: the SMPP server's certificate", () => {
  it('takes a readable certificate with its own key, valid today', () => {
    expect(checkCertificate(CERT, KEY)).toEqual({
      status: 'ok',
      detail: `${CERT} (CN=test SMSC) with its key, valid until 2126-10-30`,
    });
  });

  it('warns within 30 days of the end, fails after it and before the start', () => {
    const end = Date.parse(new X509Certificate(readFileSync(CERT)).validTo);
    expect(checkCertificate(CERT, KEY, end - 10 * 86_400_000 - 1000)).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('expires in 10 days'),
    });
    expect(checkCertificate(EXPIRED_CERT, EXPIRED_KEY)).toEqual({
      status: 'fail',
      detail: `${EXPIRED_CERT} (CN=expired SMPP) expired on 2025-02-01`,
    });
    expect(checkCertificate(CERT, KEY, Date.parse('2020-01-01')).detail).toContain('is not valid before');
  });

  it('fails on a missing file, a file that is not PEM, and a key of another certificate, never printing the key', () => {
    expect(checkCertificate(join(tlsDir, 'nothing.pem'), KEY)).toEqual({
      status: 'fail',
      detail: `cannot read the certificate (SMPP_SERVER_TLS_CERT) ${join(tlsDir, 'nothing.pem')}: ENOENT`,
    });
    expect(checkCertificate(CERT, join(tlsDir, 'README.md')).detail).toContain('is not a PEM private key');
    expect(checkCertificate(join(tlsDir, 'README.md'), KEY).detail).toContain('is not a PEM certificate');
    const mismatch = checkCertificate(CERT, EXPIRED_KEY);
    expect(mismatch).toEqual({
      status: 'fail',
      detail: `SMPP_SERVER_TLS_KEY ${EXPIRED_KEY} is not the key of the certificate ${CERT}`,
    });
    const key = readFileSync(EXPIRED_KEY, 'utf8');
    expect(mismatch.detail).not.toContain(key.split('\n')[1]);
  });
});

describe('mensajero doctor: the SMPP listener', () => {
  let h: Harness & { smppPort: number };
  let cli: CliEnv;
  beforeAll(async () => {
    h = await startSmppHarness('sqlite', {
      env: { SMPP_SERVER_TLS_PORT: '0', SMPP_SERVER_TLS_CERT: CERT, SMPP_SERVER_TLS_KEY: KEY },
    });
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    cli = await cliEnv('sqlite', {}, { migrated: true });
  });
  afterEach(() => cli.cleanup());

  it('knows a running SMPP listener, in clear and over TLS, from another program', async () => {
    expect(await smppAnswers('127.0.0.1', h.smppPort, false)).toBe(true);
    expect(await smppAnswers('127.0.0.1', h.smpp!.tlsPort!, true)).toBe(true);
    expect(await smppAnswers('127.0.0.1', h.smpp!.tlsPort!, false)).toBe(false);
    const held = await holdPort();
    try {
      expect(await smppAnswers('127.0.0.1', held.port, false)).toBe(false);
    } finally {
      held.server.close();
    }
    expect(await smppAnswers('127.0.0.1', await closedPort(), true)).toBe(false);
  });

  it('is green with free ports and a valid certificate, or with a running Mensajero on them', async () => {
    const env = {
      ...cli.env,
      PORT: '0',
      SMPP_SERVER_HOST: '127.0.0.1',
      SMPP_SERVER_TLS_CERT: CERT,
      SMPP_SERVER_TLS_KEY: KEY,
    };
    const free = await doctor({
      ...env,
      SMPP_SERVER_PORT: String(await closedPort()),
      SMPP_SERVER_TLS_PORT: String(await closedPort()),
    });
    expect(free.code, free.stdout).toBe(0);
    expect(free.checks['smpp port']).toMatchObject({ status: 'ok', detail: expect.stringContaining('is free') });
    expect(free.checks['smpp tls port']).toMatchObject({ status: 'ok', detail: expect.stringContaining('is free') });
    expect(free.checks['smpp tls certificate']).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('valid until'),
    });

    const running = await doctor({
      ...env,
      SMPP_SERVER_PORT: String(h.smppPort),
      SMPP_SERVER_TLS_PORT: String(h.smpp!.tlsPort),
    });
    expect(running.code, running.stdout).toBe(0);
    expect(running.checks['smpp port'].detail).toContain('answers enquire_link (a running Mensajero)');
    expect(running.checks['smpp tls port'].detail).toContain('answers enquire_link over TLS');
  });

  it('fails on a port another program holds and an expired certificate; without SMPP, no SMPP check', async () => {
    const held = await holdPort();
    try {
      const r = await doctor({
        ...cli.env,
        PORT: '0',
        SMPP_SERVER_HOST: '127.0.0.1',
        SMPP_SERVER_PORT: String(held.port),
        SMPP_SERVER_TLS_PORT: '0',
        SMPP_SERVER_TLS_CERT: EXPIRED_CERT,
        SMPP_SERVER_TLS_KEY: EXPIRED_KEY,
      });
      expect(r.code).toBe(1);
      expect(r.json.ok).toBe(false);
      expect(r.checks['smpp port']).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('another program'),
      });
      expect(r.checks['smpp tls port']).toMatchObject({
        status: 'ok',
        detail: expect.stringContaining('0: the system picks'),
      });
      expect(r.checks['smpp tls certificate']).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('expired on 2025-02-01'),
      });
    } finally {
      held.server.close();
    }
    const without = await doctor({ ...cli.env, PORT: '0' });
    expect(Object.keys(without.checks).filter((name) => name.startsWith('smpp'))).toEqual([]);
  });
});
