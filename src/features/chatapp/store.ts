import type { Selectable } from 'kysely';
import type { Executor } from '../../db/engine.js';
import { affected } from '../../db/engine.js';
import { randomToken } from '../../lib/ids.js';
import type { ChatappInstancesTable } from './tables.js';

export type ChatappInstance = Selectable<ChatappInstancesTable>;
export type InstanceStatus = ChatappInstance['status'];

export async function createInstance(db: Executor, accountId: number): Promise<ChatappInstance> {
  return db
    .insertInto('chatapp_instances')
    .values({
      instance_id: randomToken(12),
      account_id: accountId,
      status: 'active',
      created_at: Date.now(),
      cloud_settings: null,
      cloud_secrets_enc: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The account's instance with that id; another account's instance is absent. */
export async function findInstance(
  db: Executor,
  accountId: number,
  instanceId: string,
): Promise<ChatappInstance | undefined> {
  return db
    .selectFrom('chatapp_instances')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function listInstances(db: Executor, accountId: number): Promise<ChatappInstance[]> {
  return db.selectFrom('chatapp_instances').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** Returns false when the account has no such instance. */
export async function setInstanceStatus(
  db: Executor,
  accountId: number,
  instanceId: string,
  status: InstanceStatus,
): Promise<boolean> {
  const result = await db
    .updateTable('chatapp_instances')
    .set({ status })
    .where('instance_id', '=', instanceId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return affected(result) > 0;
}

/** The instances bound to a Cloud API number, but `exceptId`: whose number a new binding may not take. */
export async function boundInstances(db: Executor, exceptId: number) {
  return db
    .selectFrom('chatapp_instances')
    .select(['instance_id', 'cloud_settings'])
    .where('cloud_settings', 'is not', null)
    .where('id', '!=', exceptId)
    .execute();
}

/** Binds the instance to a Cloud API number (settings and sealed secrets), or unbinds it with null. */
export async function setBinding(
  db: Executor,
  id: number,
  binding: { cloud_settings: string; cloud_secrets_enc: string } | null,
): Promise<void> {
  await db
    .updateTable('chatapp_instances')
    .set({ cloud_settings: binding?.cloud_settings ?? null, cloud_secrets_enc: binding?.cloud_secrets_enc ?? null })
    .where('id', '=', id)
    .execute();
}
