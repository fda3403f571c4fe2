import type { Command } from 'commander';
import { MAX_BALANCE_CREDITS, toCredits, toUnits } from '../../accounts/credits.js';
import { listAccounts, MAX_ACCOUNT_SEARCH, MAX_REASON, reasonProblem, type Account } from '../../accounts/index.js';
import { accountSettings, type AccountSettingsView } from './settings.js';
import { addCredits, archiveFamily, replaceKey, reviveAccount } from './admin.js';
import { applyAccountSettings } from './set-settings.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { AccountCreateError, createAccount } from '../../accounts/create.js';
import type { BaseContext } from '../../context.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { pageOf, PARENT_OPTION, requireAccount, table } from '../../cli/helpers.js';
import { ledgerCommand } from './cli-ledger.js';
import { passwordResetCommand, setPasswordFromStdin } from './cli-password.js';
import { number, passwordFrom, settingOptions } from './cli-options.js';

/** The highest --page of `accounts list`: 100 accounts a page, a million pages. */
const MAX_PAGE = 1_000_000;

const JSON_OPTION = ['--json', 'print one JSON object'] as const;

/** An account's settings as `accounts show` and `accounts set` print them without --json: one `name: value` a line. */
function settingsText(view: Record<string, unknown>): string {
  return Object.entries(view)
    .map(([name, value]) => `${name}: ${value !== null && typeof value === 'object' ? JSON.stringify(value) : value}`)
    .join('\n');
}

const settingsOf = (ctx: BaseContext, account: Account) =>
  accountSettings(ctx.db.kysely, account, ctx.config.CREDIT_VALUE);

function createCommand(accounts: Command, run: CliRunner): void {
  accounts
    .command('create')
    .requiredOption('--email <email>')
    .option('--password-stdin', 'read the password from the first line of standard input')
    .option(
      '--password <password>',
      'UNSAFE: visible in the process list; prefer --password-stdin or MENSAJERO_PASSWORD',
    )
    .option('--credits <n>', 'starting balance', number, 0)
    .option(...JSON_OPTION)
    .action((o) =>
      run(
        o,
        async (ctx) => {
          if (o.credits < 0) throw new CliError('--credits cannot be negative');
          const password = await passwordFrom(o);
          const { account, apikey } = await createAccount(ctx.db, ctx.secrets.keyEncryption, {
            email: o.email,
            password,
            credits: o.credits,
          }).catch((err) => {
            throw err instanceof AccountCreateError ? new CliError(err.message) : err;
          });
          return { id: account.id, email: account.email, apikey, credits: toCredits(account.credits) };
        },
        (r) => `created account ${r.id} (${r.email}) with ${r.credits} credits\napikey: ${r.apikey}`,
      ),
    );
}

function creditsCommand(accounts: Command, run: CliRunner): void {
  accounts
    .command('credits')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .requiredOption('--add <n>', 'credits to add; negative withdraws', number)
    .option('--reason <text>', 'why the balance changes: kept in the credit ledger and the audit log')
    .option(...JSON_OPTION)
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          const units = toUnits(o.add);
          const reason = o.reason === undefined ? null : String(o.reason).trim() || null;
          if (reason !== null && reasonProblem(reason))
            throw new CliError(`--reason: one line of at most ${MAX_REASON} characters, no control characters`);
          if (!(await addCredits(ctx.db, account.id, units, { actor: 'cli', reason })))
            throw new CliError(
              units < 0 ? 'the balance cannot go below zero' : `the balance cannot pass ${MAX_BALANCE_CREDITS} credits`,
            );
          const after = await requireAccount(ctx, o.email, o.parent);
          return { email: shownEmail(after.email), credits: toCredits(after.credits) };
        },
        (r) => `${r.email}: ${r.credits} credits`,
      ),
    );
}

async function setAccount(ctx: BaseContext, o: Record<string, any>): Promise<AccountSettingsView> {
  return applyAccountSettings(ctx, await requireAccount(ctx, o.email, o.parent), o);
}

/** `accounts list [--search TEXT] [--page N]` and `accounts show --email E`: what is there, changing nothing. */
function readCommands(accounts: Command, run: CliRunner): void {
  accounts
    .command('list')
    .description('accounts in id order, 100 a page, with their balance and status')
    .option('--search <text>', 'only accounts whose email contains this text (any case)')
    .option('--page <n>', 'the page, from 1', '1')
    .option(...JSON_OPTION)
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const page = pageOf(o.page, MAX_PAGE);
          if (o.search !== undefined && String(o.search).length > MAX_ACCOUNT_SEARCH)
            throw new CliError(`--search is at most ${MAX_ACCOUNT_SEARCH} characters`);
          return { ...(await listAccounts(ctx.db.kysely, { search: o.search, page })) };
        },
        (r) =>
          table(r.accounts, ['id', 'email', 'credits', 'status', 'parent_id']) +
          (r.has_more ? `\n(more: --page ${r.page + 1})` : ''),
      ),
    );
  accounts
    .command('show')
    .description('one account with its settings, prices in force and opt-out settings')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option(...JSON_OPTION)
    .action((o) =>
      run(
        o,
        async (ctx) => ({ ...(await settingsOf(ctx, await requireAccount(ctx, o.email, o.parent))) }),
        settingsText,
      ),
    );
}

/** The settings `accounts set` was given besides the account and --password-stdin. */
const settingsGiven = (o: Record<string, unknown>) =>
  Object.keys(o).filter((k) => !['email', 'parent', 'json', 'passwordStdin'].includes(k) && o[k] !== undefined);

function setCommand(accounts: Command, run: CliRunner): void {
  settingOptions(accounts.command('set'))
    .option('--password-stdin', "the panel password, from the first line of standard input (the panel's rule)")
    .action((o) =>
      run(
        o,
        async (ctx): Promise<Record<string, unknown>> => {
          if (!o.passwordStdin) return { ...(await setAccount(ctx, o)) };
          if (settingsGiven(o).length > 0)
            throw new CliError('--password-stdin is set alone: no other setting with it');
          return setPasswordFromStdin(ctx, o);
        },
        settingsText,
      ),
    );
}

/** `accounts archive|unarchive|rotate-key`: suspending, reviving, and replacing the key. */
function keyCommands(accounts: Command, run: CliRunner): void {
  accounts
    .command('archive')
    .description('suspend the account and its sub-accounts: keys, tokens, panel sessions and pending sends stop')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option(...JSON_OPTION)
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          const { subaccounts } = await archiveFamily(ctx.db, account.id);
          return { email: shownEmail(account.email), status: 'archived', subaccounts_archived: subaccounts };
        },
        (r) =>
          `${r.email} archived, with ${r.subaccounts_archived} sub-accounts (unarchive each with accounts unarchive)`,
      ),
    );
  accounts
    .command('unarchive')
    .description('revive this one account with a new API key; its sub-accounts stay archived')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option(...JSON_OPTION)
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          if (account.status === 'active') throw new CliError(`${shownEmail(account.email)} is not archived`);
          const apikey = await reviveAccount(ctx.db, ctx.secrets.keyEncryption, account.id);
          if (!apikey) throw new CliError(`${shownEmail(account.email)} stays archived: unarchive its parent first`);
          return { email: shownEmail(account.email), status: 'active', apikey };
        },
        (r) =>
          `${r.email} is active again\nnew apikey: ${r.apikey}\n(its sub-accounts stay archived: unarchive each one)`,
      ),
    );
  accounts
    .command('rotate-key')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option(...JSON_OPTION)
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          const apikey = await replaceKey(ctx.db, ctx.secrets.keyEncryption, account.id);
          return { email: shownEmail(account.email), apikey };
        },
        (r) => `new apikey for ${r.email}: ${r.apikey}\n(the old key no longer works)`,
      ),
    );
}

export function accountCommands(program: Command, run: CliRunner): void {
  const accounts = program.command('accounts').description('create and administer accounts');
  createCommand(accounts, run);
  creditsCommand(accounts, run);
  setCommand(accounts, run);
  readCommands(accounts, run);
  keyCommands(accounts, run);
  ledgerCommand(accounts, run);
  passwordResetCommand(accounts, run);
}
