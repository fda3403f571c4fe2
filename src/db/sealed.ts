import { sql } from 'kysely';
import { decrypt, loadServerSecret, readServerSecret, secretFile, Secrets } from '../lib/secrets.js';
import type { Db } from './engine.js';

/**
 * What the database keeps sealed with a key derived from the server secret
 * (AES-256-GCM, lib/secrets.ts), by table and column, and the key each is
 * sealed with. Named here by their table only: the foundation imports none of
 * the modules that own them. A table added with a sealed column gets a line.
 */
export const sealedColumns: ReadonlyArray<{
  what: string;
  table: string;
  column: string;
  key: 'keyEncryption' | 'webhookEncryption' | 'panelTotpEncryption';
}> = [
  { what: 'API keys', table: 'api_keys', column: 'key_enc', key: 'keyEncryption' },
  { what: 'carrier passwords', table: 'carriers', column: 'password_enc', key: 'keyEncryption' },
  {
    what: 'chat-app instance credentials',
    table: 'chatapp_instances',
    column: 'cloud_secrets_enc',
    key: 'keyEncryption',
  },
  { what: 'payment provider keys', table: 'payment_provider_settings', column: 'secret_key_enc', key: 'keyEncryption' },
  { what: 'webhook signing secrets', table: 'webhook_secrets', column: 'secret_enc', key: 'webhookEncryption' },
  { what: 'panel authenticator secrets', table: 'panel_totp', column: 'secret_enc', key: 'panelTotpEncryption' },
];

/** One sealed value of each kind the database holds (none of a kind it holds none of). */
export interface SealedSample {
  what: string;
  key: (typeof sealedColumns)[number]['key'];
  sealed: string;
}

/** One value of each sealed column that holds any: what a secret must open. Needs a migrated database. */
export async function sealedSamples(db: Db): Promise<SealedSample[]> {
  const samples: SealedSample[] = [];
  for (const { what, table, column, key } of sealedColumns) {
    const { rows } = await sql<{ sealed: string }>`select ${sql.ref(column)} as sealed from ${sql.table(table)}
      where ${sql.ref(column)} is not null limit 1`.execute(db.kysely);
    if (rows[0]) samples.push({ what, key, sealed: rows[0].sealed });
  }
  return samples;
}

/** The kinds of sealed data `master` does not open (AES-GCM refuses a value sealed with another key). */
export function unopened(master: Buffer, samples: SealedSample[]): string[] {
  const secrets = new Secrets(master);
  return samples
    .filter(({ key, sealed }) => {
      try {
        decrypt(secrets[key], sealed);
        return false;
      } catch {
        return true;
      }
    })
    .map((s) => s.what);
}

export type SecretVerdict =
  | { status: 'ok'; master: Buffer; detail: string }
  | { status: 'none'; detail: string }
  | { status: 'fail'; detail: string };

/**
 * Whether the server secret in use (MENSAJERO_SECRET, else DATA_DIR/secret.key) opens what the database holds sealed:
 * `fail` when it does not, or when there is none but the database holds sealed data (a restore without its secret);
 * `none` when there is none and nothing is sealed yet. Creates nothing. `doctor` reports it, and every process refuses
 * to start on a `fail` (secretFor).
 */
export async function secretVerdict(db: Db, envSecret: string | undefined, dataDir: string): Promise<SecretVerdict> {
  const source = envSecret ? 'MENSAJERO_SECRET' : secretFile(dataDir);
  let master: Buffer | undefined;
  try {
    master = readServerSecret(envSecret, dataDir);
  } catch (err) {
    return { status: 'fail', detail: `${source}: ${(err as Error).message}` };
  }
  const samples = await sealedSamples(db);
  const kinds = samples.map((s) => s.what).join(', ');
  if (!master && samples.length > 0)
    return {
      status: 'fail',
      detail: `no secret (${source} is missing) but the database holds ${kinds} sealed with one`,
    };
  if (!master) return { status: 'none', detail: `none yet: the first command or serve creates ${source}` };
  if (samples.length === 0) return { status: 'ok', master, detail: `${source} is present; nothing sealed to open yet` };
  const closed = unopened(master, samples);
  if (closed.length > 0)
    return {
      status: 'fail',
      detail: `${source} does not open the stored ${closed.join(', ')}: the secret changed since they were sealed`,
    };
  return { status: 'ok', master, detail: `${source} opens the stored ${kinds}` };
}

/**
 * The server secret of a process on `db`: the one in use when it opens what the database holds sealed, a new one
 * (DATA_DIR/secret.key) when there is none and nothing is sealed. Refuses, with what `doctor` says, a secret that
 * does not open the sealed data, and never writes a new secret beside data sealed with another one: a process that
 * started anyway could open none of its carriers' passwords nor show a key, and would seal new data with a secret
 * the old data cannot be read with.
 */
export async function secretFor(db: Db, envSecret: string | undefined, dataDir: string): Promise<Buffer> {
  const verdict = await secretVerdict(db, envSecret, dataDir);
  if (verdict.status === 'fail')
    throw new Error(
      `server secret: ${verdict.detail}. Give it the secret the data was sealed with (MENSAJERO_SECRET, or ` +
        `DATA_DIR/secret.key from the backup of this database); \`mensajero doctor\` checks it`,
    );
  return verdict.status === 'ok' ? verdict.master : loadServerSecret(envSecret, dataDir);
}
