import type { Feature } from '../features/feature.js';
import { carrierCommands } from './cli.js';

/** Carrier connectors and routes: the operator's CLI, and binding them in a running service. */
export const carriers: Feature = {
  name: 'carriers',
  cli: carrierCommands,
  // Called for a running service only (not for CLI commands): connectors bind and follow configuration changes.
  jobs: (_worker, ctx) => ctx.carriers.start(),
};
