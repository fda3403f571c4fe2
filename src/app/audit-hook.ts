import type { Command } from 'commander';
import type { AuditInput } from '../audit/service.js';

/**
 * Subcommands that change nothing: every other command that succeeds is recorded in the audit log as
 * `<group>.<subcommand>`, so a new command is covered without doing anything. Add a name here only when no
 * command of that name changes anything.
 */
export const READ_ONLY_SUBCOMMANDS = new Set([
  'list',
  'show',
  'stats',
  'trace',
  'rejections',
  'replies',
  'binds',
  'check',
  'status',
  'margins',
  'timeline',
  'export',
  'search',
  'help',
  'doctor',
  'ledger',
]);

/**
 * Commands that record their own entry in the transactions of their change (written in steps, so that an interrupted
 * run leaves an entry saying what it wrote): the runner records nothing more for them.
 */
export const SELF_RECORDED = new Set(['dnc.import']);

/** The options that name what a command changed, in the order they are looked for. */
const TARGET_OPTIONS = ['email', 'id', 'name', 'number', 'systemId', 'carrier'];

/** The audit entry of a CLI command that succeeded, or undefined when it changes nothing (a read-only name). */
export function cliAuditEntry(command: Command): AuditInput | undefined {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  if (names.length === 0 || names.some((n) => READ_ONLY_SUBCOMMANDS.has(n))) return undefined;
  if (SELF_RECORDED.has(names.join('.'))) return undefined;
  const { json: _json, ...options } = command.opts() as Record<string, unknown>;
  const key = TARGET_OPTIONS.find((k) => options[k] !== undefined && options[k] !== null);
  // recordAudit leaves out every secret-named option (password, token, secret, apikey, key…).
  // A sub-account is named by its email and its parent's: the email alone may be any tenant's.
  const parent = key === 'email' && typeof options.parent === 'string' ? ` parent:${options.parent}` : '';
  const target = key ? `${String(options[key])}${parent}` : null;
  return { actor: 'cli', action: names.join('.'), target, detail: options };
}
