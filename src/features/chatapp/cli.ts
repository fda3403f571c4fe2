import type { Command } from 'commander';
import type { BaseContext } from '../../context.js';
import { PARENT_OPTION, requireAccount } from '../../cli/helpers.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { bindingFromOptions, cloudOptions, publicInstance, wantsBinding } from './cloud-cli.js';
import { addInstance, findInstance, listInstances, saveBinding, setInstanceStatus } from './instances.js';

/** `mensajero chatapp-instances add|list|disable|enable|bind|unbind`. */
export function chatappCli(program: Command, run: CliRunner): void {
  const instances = program.command('chatapp-instances').description('chat-app instances of an account');
  addCommand(instances, run);
  bindCommands(instances, run);
  listCommand(instances, run);
  statusCommands(instances, run);
}

function addCommand(instances: Command, run: CliRunner): void {
  cloudOptions(
    instances
      .command('add')
      .description(
        'link a new, active chat-app instance to the account; with --cloud-phone-number-id, bound to that Cloud API number',
      )
      .requiredOption('--email <email>')
      .option(...PARENT_OPTION)
      .option('--json', 'print one JSON object'),
  ).action((o) =>
    run(
      o,
      async (ctx) => {
        const account = await requireAccount(ctx, o.email, o.parent);
        // Read and checked before anything is written: a wrong binding creates no instance.
        const binding = wantsBinding(o) ? bindingFromOptions(ctx, o) : null;
        return publicInstance(await addInstance(ctx.db.kysely, account.id, binding));
      },
      (r) =>
        `instance ${r.instance_id} (${r.status})${r.cloud_phone_number_id ? ` on Cloud API number ${r.cloud_phone_number_id}, webhook ${r.cloud_webhook_path}` : ''}`,
    ),
  );
}

/** `bind` and `unbind`: an instance's own Cloud API number, or back to the chat-app routes. */
function bindCommands(instances: Command, run: CliRunner): void {
  cloudOptions(
    instances
      .command('bind')
      .description(
        "send this instance's messages through its own Cloud API phone number (options over the current binding; secrets kept unless --cloud-secrets - is given)",
      )
      .requiredOption('--email <email>')
      .option(...PARENT_OPTION)
      .requiredOption('--instance <instance_id>')
      .option('--json', 'print one JSON object'),
  ).action((o) =>
    run(
      o,
      async (ctx) => {
        const instance = await requireInstance(ctx, o);
        const binding = bindingFromOptions(ctx, o, instance);
        await saveBinding(ctx.db.kysely, instance, binding);
        return publicInstance({ ...instance, ...binding });
      },
      (r) =>
        `instance ${r.instance_id} on Cloud API number ${r.cloud_phone_number_id}, webhook ${r.cloud_webhook_path}`,
    ),
  );

  instances
    .command('unbind')
    .description(
      "forget the instance's Cloud API number (and its secrets): its messages follow the chat-app routes again",
    )
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .requiredOption('--instance <instance_id>')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const instance = await requireInstance(ctx, o);
          await saveBinding(ctx.db.kysely, instance, null);
          return publicInstance({ ...instance, cloud_settings: null, cloud_secrets_enc: null });
        },
        (r) => `instance ${r.instance_id} (${r.status}), routed`,
      ),
    );
}

function listCommand(instances: Command, run: CliRunner): void {
  instances
    .command('list')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const account = await requireAccount(ctx, o.email, o.parent);
          const rows = await listInstances(ctx.db.kysely, account.id);
          return { instances: rows.map(publicInstance) };
        },
        (r) =>
          r.instances
            .map(
              (i) =>
                `${i.instance_id} ${i.status}${i.cloud_phone_number_id ? ` cloud:${i.cloud_phone_number_id}` : ''}`,
            )
            .join('\n') || 'no instances',
      ),
    );
}

/** `disable` and `enable`. */
function statusCommands(instances: Command, run: CliRunner): void {
  for (const [name, status] of [
    ['disable', 'inactive'],
    ['enable', 'active'],
  ] as const) {
    instances
      .command(name)
      .description(`mark an instance ${status}`)
      .requiredOption('--email <email>')
      .option(...PARENT_OPTION)
      .requiredOption('--instance <instance_id>')
      .option('--json', 'print one JSON object')
      .action((o) =>
        run(
          o,
          async (ctx) => {
            const account = await requireAccount(ctx, o.email, o.parent);
            if (!(await setInstanceStatus(ctx.db.kysely, account.id, o.instance, status)))
              throw new CliError(`account ${o.email} has no instance ${o.instance}`);
            return { instance_id: o.instance as string, status };
          },
          (r) => `instance ${r.instance_id} (${r.status})`,
        ),
      );
  }
}

async function requireInstance(ctx: BaseContext, o: { email: string; parent?: string; instance: string }) {
  const account = await requireAccount(ctx, o.email, o.parent);
  const instance = await findInstance(ctx.db.kysely, account.id, o.instance);
  if (!instance) throw new CliError(`account ${o.email} has no instance ${o.instance}`);
  return instance;
}
