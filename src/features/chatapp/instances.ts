import type { Db, Executor } from '../../db/engine.js';
import { CliError } from '../../cli/runner.js';
import { boundInstances, createInstance, setBinding, type ChatappInstance } from './store.js';

// Chat-app instances as the operator manages them (`mensajero chatapp-instances`).

export { findInstance, listInstances, setInstanceStatus, type ChatappInstance } from './store.js';

/** An instance's own Cloud API number: its settings and its sealed secrets. */
export type Binding = { cloud_settings: string; cloud_secrets_enc: string };

/** Stores a binding; refuses a phone number already bound to another instance (its replies and statuses would be ambiguous). */
export async function saveBinding(db: Executor, instance: ChatappInstance, binding: Binding | null): Promise<void> {
  if (binding) {
    const phone = JSON.parse(binding.cloud_settings).phone_number_id as string;
    const others = await boundInstances(db, instance.id);
    const taken = others.find((x) => JSON.parse(x.cloud_settings!).phone_number_id === phone);
    if (taken) throw new CliError(`phone-number id ${phone} is already bound to instance ${taken.instance_id}`);
  }
  await setBinding(db, instance.id, binding);
}

/** A new, active instance of the account, bound in the same transaction when `binding` is given. */
export async function addInstance(db: Db['kysely'], accountId: number, binding: Binding | null) {
  return db.transaction().execute(async (trx) => {
    const instance = await createInstance(trx, accountId);
    if (binding) await saveBinding(trx, instance, binding);
    return { ...instance, ...binding };
  });
}
