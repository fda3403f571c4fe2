import type { Generated } from 'kysely';

/** A chat-app instance (a linked chat-app number) of an account. Sends name it by `instance_id`. */
export interface ChatappInstancesTable {
  id: Generated<number>;
  /** The public identifier clients send as `instance_id`. */
  instance_id: string;
  account_id: number;
  status: 'active' | 'inactive';
  created_at: number;
  /** Bound to its own Cloud API phone number: WhatsappSettings as JSON (null: routed like any chat-app message). */
  cloud_settings: string | null;
  /** Its access token, app secret and verify token, sealed with the server key. */
  cloud_secrets_enc: string | null;
}

export interface ChatappTables {
  chatapp_instances: ChatappInstancesTable;
}

declare module '../../db/schema.js' {
  interface Database extends ChatappTables {}
}
