import type { FastifyInstance } from 'fastify';
import { revealKey, rotateAccountKey } from '../../../accounts/index.js';
import { normaliseAllowList } from '../../../auth/allow-list.js';
import {
  addWebhook,
  changeStatus,
  newWebhookSecret,
  redeliver,
  redeliverFailedSince,
  removeWebhook,
  revealWebhookSecret,
  sendTestEvent,
  urlIsWellFormed,
} from '../../../webhooks/service.js';
import { changeAccountSettings } from '../../../accounts/index.js';
import { webhookAddLimit } from '../../../http/rate-limit.js';
import { localDay } from '../../../features/reports/service.js';
import { confirmPassword } from '../../confirm.js';
import { saveAllowList } from '../../service.js';
import { registerSmppPassword } from './smpp.js';
import { accountOf, field, refuse, registerAction, type Section, type Shared } from '../../view.js';

/** The Integrations page's forms: key, allow-list, webhook and its secret, SMPP passwords, redelivery. */
export function registerIntegrationsActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  registerKeyActions(scope, shared, section);
  registerWebhookActions(scope, shared, section);
  registerSmppPassword(scope, shared, section);
  registerRedelivery(scope, shared, section);
}

function registerKeyActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  registerAction(scope, shared, section, 'reveal-key', async (request, v, body) => {
    const account = accountOf(v);
    await confirmPassword(request, v, account.password_hash, account.email, body.password);
    return { shown: { apikey: await revealKey(ctx, account.id) } };
  });

  // One click, no password: rotating is the remedy for a leaked key. The new key is shown once, to the person who made it.
  registerAction(scope, shared, section, 'rotate-key', async (_request, v) => {
    const apikey = await rotateAccountKey(ctx, accountOf(v).id);
    return { shown: { apikey } };
  });

  registerAction(scope, shared, section, 'allow-list', async (request, v, body) => {
    const entries = field(body, 'allow')
      .split(/[\s,]+/)
      .filter((e) => e !== '');
    if (entries.length > 100)
      throw refuse(400, 'allow_list_invalid', { entry: entries.slice(100).join(' ').slice(0, 60) });
    let allow: string[];
    try {
      allow = normaliseAllowList(entries);
    } catch (err) {
      throw refuse(400, 'allow_list_invalid', { entry: (err as Error).message.replace(/^.*: /, '').slice(0, 80) });
    }
    const settings = {
      allow_ips: allow.length === 0 ? null : JSON.stringify(allow),
      panel_allow_ip: body.panel_allow_ip === '1' ? 1 : 0,
    };
    await saveAllowList(ctx, accountOf(v).id, settings, request.ip);
    return { done: 'allow_list_saved' };
  });
}

function registerWebhookActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  registerAction(scope, shared, section, 'webhook', async (_request, v, body) => {
    const url = field(body, 'url');
    if (!urlIsWellFormed(url)) throw refuse(400, 'webhook_url');
    const account = accountOf(v);
    // The same budget as /webhook/add: each registration costs a DNS lookup and an outbound request.
    await webhookAddLimit(ctx).consume(account.parent_id ?? account.id);
    await addWebhook(ctx, account.id, url, body.status === '0' ? 0 : 1);
    return { done: 'webhook_saved' };
  });

  registerAction(scope, shared, section, 'webhook-status', async (_request, v, body) => {
    await changeStatus(ctx, accountOf(v).id, body.status === '0' ? 0 : 1);
    return { done: 'webhook_saved' };
  });

  registerAction(scope, shared, section, 'webhook-method', async (_request, v, body) => {
    const method = field(body, 'method').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw refuse(400, 'webhook_method');
    await changeAccountSettings(ctx, accountOf(v).id, { webhook_method: method });
    return { done: 'webhook_saved' };
  });

  registerAction(scope, shared, section, 'webhook-delete', async (_request, v) => {
    await removeWebhook(ctx, accountOf(v).id);
    return { done: 'webhook_deleted' };
  });

  registerAction(scope, shared, section, 'reveal-secret', async (request, v, body) => {
    const account = accountOf(v);
    await confirmPassword(request, v, account.password_hash, account.email, body.password);
    return { shown: { secret: await revealWebhookSecret(ctx, account.id) } };
  });

  registerAction(scope, shared, section, 'rotate-secret', async (_request, v) => {
    await newWebhookSecret(ctx, accountOf(v).id);
    return { done: 'secret_rotated' };
  });

  registerAction(scope, shared, section, 'test-event', async (_request, v) => {
    await sendTestEvent(ctx, accountOf(v).id);
    return { done: 'test_event_sent' as const };
  });
}

function registerRedelivery(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  registerAction(scope, shared, section, 'redeliver', async (_request, v, body) => {
    const id = Number(field(body, 'id'));
    if (!Number.isSafeInteger(id) || id < 1) throw refuse(400, 'no_such_event');
    await redeliver(ctx, id, accountOf(v).id);
    ctx.worker.nudge();
    return { done: 'redelivered' };
  });

  registerAction(scope, shared, section, 'redeliver-failed', async (_request, v, body) => {
    const day = localDay(field(body, 'since'));
    if (!day) throw refuse(400, 'date_invalid');
    const count = await redeliverFailedSince(ctx, accountOf(v).id, day.start);
    ctx.worker.nudge();
    return { done: 'redelivered_many', count };
  });
}
