import { findAccountByEmail, type Account } from '../accounts/index.js';
import { subaccountEmailKey } from '../accounts/subaccount-email.js';
import type { BaseContext } from '../context.js';
import { CliError } from './runner.js';

/** The --parent option of every command that names an account by --email. */
export const PARENT_OPTION = [
  '--parent <parent_email>',
  'the account is the sub-account with this --email under the parent account with this email',
] as const;

/** A `--page` option's page: a whole number from 1 to `max`, else a refusal that says so. */
export function pageOf(raw: unknown, max: number): number {
  const page = Number(raw);
  if (!/^\d{1,7}$/.test(String(raw)) || page < 1 || page > max)
    throw new CliError(`--page is a whole number from 1 to ${max}`);
  return page;
}

/**
 * The account a command names: `--email` alone is a top-level account (or a
 * sub-account by its stored `<parent id> <email>`); with `--parent`, the
 * parent's sub-account with that plain email.
 */
export async function requireAccount(ctx: BaseContext, email: string, parentEmail?: string): Promise<Account> {
  if (parentEmail === undefined) {
    const account = await findAccountByEmail(ctx.db.kysely, email);
    if (!account) throw new CliError(`no account with email ${email}`);
    return account;
  }
  const parent = await findAccountByEmail(ctx.db.kysely, parentEmail);
  if (!parent || parent.parent_id !== null) throw new CliError(`no top-level account with email ${parentEmail}`);
  const sub = await findAccountByEmail(ctx.db.kysely, subaccountEmailKey(parent.id, email));
  if (!sub || sub.parent_id !== parent.id) throw new CliError(`${parentEmail} has no sub-account ${email}`);
  return sub;
}

/** The account a program is created for: it must exist and be active. */
export async function requireActiveAccount(ctx: BaseContext, email: string, parentEmail?: string) {
  const account = await requireAccount(ctx, email, parentEmail);
  if (account.status !== 'active') throw new CliError(`the account ${email} is archived`);
  return account;
}

/** A program name as the operator gives it: trimmed, 1 to 100 characters, no control characters. */
export function programName(raw: string): string {
  const name = String(raw).trim();
  if (name.length < 1 || name.length > 100 || /\p{Cc}/u.test(name))
    throw new CliError('--name must be 1 to 100 characters');
  return name;
}

/** One cell as a terminal shows it: `-` for nothing, yes/no, lists joined by commas, control characters as spaces. */
function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cellText).join(',');
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/\p{Cc}/gu, ' ');
}

/**
 * What a list command prints without --json: a header naming `columns` (the
 * JSON fields), then one line per row, each column as wide as its widest cell;
 * `(none)` under the header when there is no row.
 */
export function table(rows: readonly object[], columns: readonly string[]): string {
  const cells = rows.map((row) => columns.map((c) => cellText((row as Record<string, unknown>)[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((line) => line[i].length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns), ...(cells.length === 0 ? ['(none)'] : cells.map(line))].join('\n');
}
