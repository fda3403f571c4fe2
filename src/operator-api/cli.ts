import type { Command } from 'commander';
import { table } from '../cli/helpers.js';
import { CliError, type CliRunner } from '../cli/runner.js';
import { addOperatorToken, listOperatorTokens, revokeOperatorToken, TokenError } from './tokens.js';

const refused = (err: unknown): never => {
  throw err instanceof TokenError ? new CliError(err.message) : err;
};

/** `operator-tokens add|list|revoke`: the bearer tokens of the operator API (docs/operators/operator-api.md). */
export function operatorTokenCommands(program: Command, run: CliRunner): void {
  const tokens = program.command('operator-tokens').description('tokens of the operator API (/operator/v1/)');
  tokens
    .command('add')
    .description('create a token: printed this once, stored hashed')
    .requiredOption('--name <name>', 'who or what uses it (the audit log shows token:NAME)')
    .option('--read-only', 'GET requests only')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => addOperatorToken(ctx.db.kysely, String(o.name), o.readOnly === true).catch(refused),
        (r) => `token ${r.id} (${r.name}${r.read_only ? ', read-only' : ''}): ${r.token}\n(shown this once)`,
      ),
    );
  tokens
    .command('list')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => ({ tokens: await listOperatorTokens(ctx.db.kysely) }),
        (r) =>
          r.tokens.length === 0
            ? 'no tokens: the operator API is off'
            : table(r.tokens, ['id', 'name', 'read_only', 'created_at', 'last_used_at']),
      ),
    );
  tokens
    .command('revoke')
    .requiredOption('--id <n>', 'the token id (operator-tokens list)')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const id = Number(o.id);
          if (!Number.isSafeInteger(id) || id < 1) throw new CliError('--id is a token id');
          if (!(await revokeOperatorToken(ctx.db.kysely, id))) throw new CliError(`no token ${o.id}`);
          return { revoked: true };
        },
        () => 'revoked',
      ),
    );
}
