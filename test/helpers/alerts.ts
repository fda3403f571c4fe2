/* Shared setup of the operator alert suites (src/alerts/*.test.ts): the operator's webhook receiver and a local SMTP server. */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startHttpServer, type SeenRequest } from './http-server.js';

export const operatorSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The operator's alert endpoint: records every POST, answers `status` of it (200 unless told). */
export async function operatorEndpoint(status: (r: SeenRequest) => number = () => 200) {
  const server = await startHttpServer((r) => ({ status: status(r), body: 'ok', type: 'text/plain' }));
  const alerts = () => server.seen.map((r) => ({ ...r, alert: JSON.parse(r.body) as Record<string, string> }));
  return { ...server, url: `${server.url}/alerts`, alerts };
}

export interface Mail {
  from: string;
  to: string[];
  user: string | undefined;
  text: string;
}

/** A local SMTP server (smtp-server) that accepts one user and keeps every message. */
export async function startSmtp(user = 'alerts', password = 'p@ss:word') {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user });
      callback(new Error('wrong credentials'));
    },
    onData(stream, session, callback) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          text,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    mails,
    url: `smtp://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
