import type { FastifyInstance } from 'fastify';
import type { Account } from '../../../accounts/index.js';
import { accountById, rotateKey, settingsOf } from '../../operator-data.js';
import { addSenderAs, removeSenderAs, setAccountAs } from '../../../operator-api/account-writes.js';
import { passwordResetAs } from '../../../operator-api/service.js';
import { inPanelWords } from '../../refusals.js';
import { field, refuse, registerAction, type Section, type Shared } from '../../view.js';
import { panelBy, registerPriceActions } from '../operator/prices.js';
import { changedSettings } from './settings.js';

/** The account a form of the account page names by its hidden `id`; 404 when there is none. */
async function formAccount(shared: Shared, body: Record<string, string | undefined>): Promise<Account> {
  const id = field(body, 'id');
  const account = /^\d{1,15}$/.test(id) ? await accountById(shared.ctx, Number(id)) : undefined;
  if (!account) throw refuse(404, 'account_missing');
  return account;
}

/**
 * The account page's forms, each through the service the operator API calls (recorded by it in the audit log as
 * `panel:EMAIL`): settings (`accounts set`), prefix prices, senders, the password link; key rotation is `accounts
 * rotate-key`'s, recorded here.
 */
export function registerAccountActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  const back = (account: Account) => ({ id: String(account.id) });

  registerAction(
    scope,
    shared,
    section,
    'settings',
    async (request, v, body) => {
      const account = await formAccount(shared, body);
      const now = await settingsOf(ctx, account);
      const changed = changedSettings(now, body);
      if (Object.keys(changed).length > 0)
        await inPanelWords(v, () => setAccountAs(ctx, panelBy(request), account.id, changed));
      return { done: 'settings_saved', query: back(account) };
    },
    null,
  );

  registerPriceActions(scope, shared, section, (body) => ({ id: field(body, 'id') }));

  registerAction(
    scope,
    shared,
    section,
    'add-sender',
    async (request, v, body) => {
      const account = await formAccount(shared, body);
      const sender = { sender: field(body, 'sender'), rcs: body.rcs === '1' };
      await inPanelWords(v, () => addSenderAs(ctx, panelBy(request), account.id, sender));
      return { done: 'sender_added', query: back(account) };
    },
    null,
  );

  registerAction(
    scope,
    shared,
    section,
    'remove-sender',
    async (request, _v, body) => {
      const account = await formAccount(shared, body);
      await removeSenderAs(ctx, panelBy(request), account.id, field(body, 'sender'));
      return { done: 'sender_removed', query: back(account) };
    },
    null,
  );

  registerAction(
    scope,
    shared,
    section,
    'rotate-key',
    async (_request, _v, body) => {
      const account = await formAccount(shared, body);
      if (account.status !== 'active') throw refuse(409, 'op_account_archived');
      const apikey = await rotateKey(ctx, account.id);
      return { shown: { id: account.id, apikey } };
    },
    'accounts.rotate-key',
  );

  registerAction(
    scope,
    shared,
    section,
    'password-reset',
    async (request, v, body) => {
      const account = await formAccount(shared, body);
      const link = await inPanelWords(v, () => passwordResetAs(ctx, panelBy(request), account.id));
      return { shown: { id: account.id, reset_url: link.reset_url, expires_at: link.expires_at } };
    },
    null,
  );
}
