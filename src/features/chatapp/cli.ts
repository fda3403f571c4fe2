import type { Command } from 'commander';
import { PARENT_OPTION, requireAccount } from '../../cli/accounts.js';
import { CliError, type CliRunner } from '../../cli/run.js';
import { createInstance, listInstances, setInstanceStatus } from './store.js';

/** `mensajero chatapp-instances add|list|disable|enable`. */
export function chatappCli(program: Command, run: CliRunner): void {
  const instances = program.command('chatapp-instances').description('chat-app instances of an account');

  instances
    .command('add')
    .description('link a new, active chat-app instance to the account')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const account = await requireAccount(ctx, o.email, o.parent);
        const instance = await createInstance(ctx.db.kysely, account.id);
        return { instance_id: instance.instance_id, status: instance.status };
      }, (r) => `instance ${r.instance_id} (${r.status})`),
    );

  instances
    .command('list')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const account = await requireAccount(ctx, o.email, o.parent);
        const rows = await listInstances(ctx.db.kysely, account.id);
        return { instances: rows.map((i) => ({ instance_id: i.instance_id, status: i.status })) };
      }, (r) => r.instances.map((i) => `${i.instance_id} ${i.status}`).join('\n') || 'no instances'),
    );

  for (const [name, status] of [['disable', 'inactive'], ['enable', 'active']] as const) {
    instances
      .command(name)
      .description(`mark an instance ${status}`)
      .requiredOption('--email <email>')
      .option(...PARENT_OPTION)
      .requiredOption('--instance <instance_id>')
      .option('--json', 'print one JSON object')
      .action((o) =>
        run(o, async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          if (!(await setInstanceStatus(ctx.db.kysely, account.id, o.instance, status))) throw new CliError(`account ${o.email} has no instance ${o.instance}`);
          return { instance_id: o.instance as string, status };
        }, (r) => `instance ${r.instance_id} (${r.status})`),
      );
  }
}
