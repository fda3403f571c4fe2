import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';

/** A certificate this close to its end is reported as a warning. */
export const CERT_WARN_DAYS = 30;
const DAY_MS = 86_400_000;

/** An enquire_link PDU (SMPP 3.4): 16 octets, command_id 0x00000015, sequence 1. */
const ENQUIRE_LINK = Buffer.from('00000010000000150000000000000001', 'hex');
const ENQUIRE_LINK_RESP = 0x80000015;

/**
 * Whether an SMPP server answers at host:port: an enquire_link (answered
 * before any bind) gets its enquire_link_resp within 2 s. Nothing is bound,
 * so no failed bind is counted against this address.
 */
export function smppAnswers(host: string, port: number, overTls: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const options = { host, port, rejectUnauthorized: false, servername: net.isIP(host) ? undefined : host };
    const socket = overTls ? tls.connect(options) : net.connect({ host, port });
    let got = Buffer.alloc(0);
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), 2000);
    socket.once(overTls ? 'secureConnect' : 'connect', () => socket.write(ENQUIRE_LINK));
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]).subarray(0, 64);
      if (got.length >= 16) done(got.readUInt32BE(4) === ENQUIRE_LINK_RESP && got.readUInt32BE(12) === 1);
    });
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}

export interface CertificateFinding {
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(
      `cannot read the ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { cause: err },
    );
  }
}

/**
 * The SMPP server's TLS files as the listener will load them: both
 * readable, a PEM certificate and a private key that belongs to it, and the
 * certificate valid today (a warning within CERT_WARN_DAYS of its end).
 * Never prints the key.
 */
export function checkCertificate(certPath: string, keyPath: string, now = Date.now()): CertificateFinding {
  let cert: X509Certificate;
  let key: KeyObject;
  try {
    const certPem = readPem(certPath, 'certificate (SMPP_SERVER_TLS_CERT)');
    const keyPem = readPem(keyPath, 'key (SMPP_SERVER_TLS_KEY)');
    try {
      cert = new X509Certificate(certPem);
    } catch {
      throw new Error(`SMPP_SERVER_TLS_CERT ${certPath} is not a PEM certificate`);
    }
    try {
      key = createPrivateKey(keyPem);
    } catch {
      throw new Error(`SMPP_SERVER_TLS_KEY ${keyPath} is not a PEM private key (or it is encrypted)`);
    }
    if (!cert.checkPrivateKey(key))
      throw new Error(`SMPP_SERVER_TLS_KEY ${keyPath} is not the key of the certificate ${certPath}`);
    tls.createSecureContext({ cert: certPem, key: keyPem });
  } catch (err) {
    return { status: 'fail', detail: (err as Error).message };
  }
  return validity(cert, certPath, now);
}

function validity(cert: X509Certificate, certPath: string, now: number): CertificateFinding {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  const until = new Date(to).toISOString().slice(0, 10);
  const subject = cert.subject.replace(/\n/g, ', ');
  if (now < from) return { status: 'fail', detail: `${certPath} (${subject}) is not valid before ${cert.validFrom}` };
  if (now > to) return { status: 'fail', detail: `${certPath} (${subject}) expired on ${until}` };
  const days = Math.floor((to - now) / DAY_MS);
  if (days < CERT_WARN_DAYS)
    return { status: 'warn', detail: `${certPath} (${subject}) expires in ${days} days, on ${until}` };
  return { status: 'ok', detail: `${certPath} (${subject}) with its key, valid until ${until}` };
}
