import { Command } from 'commander';
import { expect, it } from 'vitest';
import { cleanDetail, sinceOf } from './service.js';
import { cliAuditEntry } from '../app/audit-hook.js';

it('leaves every secret-named field out of a detail, at any depth, and keeps the rest', () => {
  const detail = cleanDetail({
    email: 'a@example.com',
    password: 'p',
    passwordStdin: true,
    token: 't',
    secretKey: 's',
    apikey: 'k',
    api_key: 'k',
    key: 'k',
    keyFile: 'f',
    privateKey: 'x',
    _csrf: 'c',
    keyword: 'STOP',
    nested: { webhook_secret: 'w', url: 'https://example.com' },
    long: 'x'.repeat(500),
  });
  expect(detail).toEqual({
    email: 'a@example.com',
    keyword: 'STOP',
    nested: { url: 'https://example.com' },
    long: `${'x'.repeat(200)}…`,
  });
});

it('reads --since as a duration back or an ISO moment', () => {
  expect(sinceOf('24h', 100_000_000)).toBe(100_000_000 - 86_400_000);
  expect(sinceOf('30m', 10_000_000)).toBe(10_000_000 - 1_800_000);
  expect(sinceOf('2026-01-02T00:00:00Z')).toBe(Date.UTC(2026, 0, 2));
  expect(sinceOf('yesterday')).toBeUndefined();
  expect(sinceOf('24')).toBeUndefined();
});

function invoked(argv: string[]): Command {
  const program = new Command('mensajero');
  let ran: Command | undefined;
  program.hook('preAction', (_p, c) => void (ran = c));
  const group = program.command('mo-routes');
  for (const sub of ['add', 'list'])
    group
      .command(sub)
      .option('--email <e>')
      .option('--parent <p>')
      .option('--keyword <w>')
      .option('--secret <s>')
      .option('--json')
      .action(() => undefined);
  program.parse(argv, { from: 'user' });
  return ran!;
}

it('records any command not named as read-only, with its target and options minus secrets', () => {
  const entry = cliAuditEntry(
    invoked(['mo-routes', 'add', '--email', 'a@example.com', '--keyword', 'HOLA', '--secret', 'x', '--json']),
  );
  expect(entry).toEqual({
    actor: 'cli',
    action: 'mo-routes.add',
    target: 'a@example.com',
    detail: { email: 'a@example.com', keyword: 'HOLA', secret: 'x' },
  });
  // recordAudit cleans the detail it stores.
  expect(cleanDetail(entry!.detail!)).toEqual({ email: 'a@example.com', keyword: 'HOLA' });
  expect(cliAuditEntry(invoked(['mo-routes', 'list', '--json']))).toBeUndefined();
});

it('redacts the secrets inside URLs whatever the field is named: user:password@, a key as user, ?password=', () => {
  const detail = cleanDetail({
    graphUrl: 'https://user:secret@graph.example.com/v19.0',
    apiBase: 'https://sk_live_51Habc:@api.stripe.com',
    to: 'postgres://app@db.example.com:5432/mensajero?password=hunter2&sslmode=require',
    url: 'https://hooks.example.com/in?access_token=abc&Signature=s1&id=7',
    note: 'moved from postgres://admin:pw@old/db and redis://:redispw@cache:6379/0 today',
    nested: { list: ['https://u:p@x.example.com'] },
    plain: 'https://example.com/a?b=c',
  });
  expect(detail).toEqual({
    graphUrl: 'https://user:***@graph.example.com/v19.0',
    apiBase: 'https://***:***@api.stripe.com',
    to: 'postgres://app@db.example.com:5432/mensajero?password=***&sslmode=require',
    url: 'https://hooks.example.com/in?access_token=***&Signature=***&id=7',
    note: 'moved from postgres://admin:***@old/db and redis://:***@cache:6379/0 today',
    nested: { list: ['https://u:***@x.example.com'] },
    plain: 'https://example.com/a?b=c',
  });
  for (const value of Object.values(detail))
    expect(JSON.stringify(value)).not.toMatch(/secret@|sk_live|hunter2|abc|s1|:pw@|redispw/);
});

it('names a sub-account in a CLI entry by its email and its parent’s', () => {
  const entry = cliAuditEntry(invoked(['mo-routes', 'add', '--email', 'kid@example.com', '--parent', 'p@example.com']));
  expect(entry!.target).toBe('kid@example.com parent:p@example.com');
});
