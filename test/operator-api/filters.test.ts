import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { runCommands } from '../helpers/cli.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { listAudit } from '../../src/audit/service.js';
import { filterCommands } from '../../src/features/filters/cli.js';
import { accountCommands } from '../../src/features/accounts/cli.js';

/** `filters add|list|remove` and /operator/v1/filters answer the contract's objects; `accounts set`'s abuse settings. */
describeEngines('content filters and abuse settings: CLI and operator API', (engine) => {
  let api: OperatorApi;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token, body });
  const cli = (...args: string[]) => runCommands(api.h.ctx, [filterCommands, accountCommands], [...args, '--json']);
  beforeAll(async () => {
    api = await startOperatorApi(engine);
    token = await api.token('filters');
  }, 60_000);
  afterAll(async () => {
    await api?.h.close();
  });

  it('adds, lists and removes filters on the CLI as the contract prints them', async () => {
    const a = await api.h.createAccount(0, 'tienda@example.com');
    const word = await cli('filters', 'add', '--action', 'block', '--word', '  Cuénta BLOQUEADA! ');
    expect(word).toEqual({
      id: word.id,
      action: 'block',
      scope: 'deployment',
      email: null,
      word: 'cuenta bloqueada',
      domain: null,
    });
    const domain = await cli('filters', 'add', '--action', 'flag', '--email', a.email, '--domain', 'BBVA-MX.example');
    expect(domain).toEqual({
      id: domain.id,
      action: 'flag',
      scope: 'account',
      email: 'tienda@example.com',
      word: null,
      domain: 'bbva-mx.example',
    });
    expect(await cli('filters', 'list')).toEqual({ filters: [word, domain] });
    expect((await cli('filters', 'add', '--action', 'block', '--word', 'cuenta bloqueada')).error).toMatch(/exists/);
    for (const bad of [
      ['--action', 'drop', '--word', 'x'],
      ['--action', 'block'],
      ['--action', 'block', '--word', 'x', '--domain', 'a.example'],
      ['--action', 'block', '--word', '!!!'],
      ['--action', 'block', '--domain', 'https://a.example/login'],
      ['--action', 'block', '--domain', 'localhost'],
    ])
      expect((await cli('filters', 'add', ...bad)).error).toBeDefined();
    expect(await cli('filters', 'remove', '--id', String(word.id))).toEqual({ removed: true });
    expect(await cli('filters', 'remove', '--id', String(word.id))).toEqual({ removed: false });
    expect(await cli('filters', 'list')).toEqual({ filters: [domain] });
  });

  it('POST, GET and DELETE /operator/v1/filters, each change in the audit log and the OpenAPI document', async () => {
    const a = await api.h.createAccount(0, 'banco@example.com');
    const added = await call('POST', '/filters', { action: 'block', account_id: a.id, word: 'su cuenta' });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      id: added.body.id,
      action: 'block',
      scope: 'account',
      email: 'banco@example.com',
      word: 'su cuenta',
      domain: null,
    });
    expect((await call('GET', '/filters')).body.filters).toContainEqual(added.body);
    expect((await call('POST', '/filters', { action: 'block', account_id: a.id, word: 'SU CUENTA' })).status).toBe(409);
    for (const body of [
      { action: 'block' },
      { action: 'nope', word: 'x' },
      { action: 'flag', word: 'x', regex: '.*' },
      { action: 'flag', domain: 'no domain' },
    ])
      expect((await call('POST', '/filters', body)).status).toBe(400);
    expect((await call('POST', '/filters', { action: 'flag', account_id: 999999, word: 'x' })).status).toBe(404);
    expect((await call('DELETE', `/filters/${added.body.id}`)).body).toEqual({ removed: true });
    expect((await call('DELETE', `/filters/${added.body.id}`)).status).toBe(404);
    const actions = (await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'token:filters' })).map((e) => e.action);
    expect(actions).toEqual(['filters.remove', 'filters.add']);
    const doc = (await call('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/filters'])).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/filters/{id}'])).toEqual(['delete']);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it('accounts set --countries, --senders and the destination caps, shown by accounts show', async () => {
    const a = await api.h.createAccount(0, 'ajustes@example.com');
    const set = await cli(
      ...['accounts', 'set', '--email', a.email, '--countries', '52,+1,52', '--senders', 'registered'],
      ...['--max-per-number-hour', '10', '--max-same-text-hour', '3'],
    );
    expect(set).toMatchObject({
      countries: ['52', '1'],
      senders: 'registered',
      max_per_number_hour: 10,
      max_same_text_hour: 3,
    });
    const back = await cli(
      ...['accounts', 'set', '--email', a.email, '--countries', 'any', '--senders', 'any'],
      ...['--max-per-number-hour', 'default', '--max-same-text-hour', 'default'],
    );
    expect(back).toMatchObject({
      countries: 'any',
      senders: 'any',
      max_per_number_hour: 'default',
      max_same_text_hour: 'default',
    });
    for (const bad of [
      ['--countries', '52,x'],
      ['--senders', 'some'],
      ['--max-per-number-hour', '0'],
      ['--max-same-text-hour', 'lots'],
    ])
      expect((await cli('accounts', 'set', '--email', a.email, ...bad)).error).toBeDefined();
  });
});
