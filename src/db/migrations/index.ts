import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0003 from './0003_messaging.js';
import * as m0004 from './0004_events.js';

/** Every migration, in order. Names sort; a feature adds its file here. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0003_messaging': m0003,
  '0004_events': m0004,
};
