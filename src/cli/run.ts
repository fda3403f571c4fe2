import pino from 'pino';
import { loadConfig } from '../config.js';
import type { BaseContext } from '../context.js';
import { closeBaseContext, createBaseContext } from '../boot.js';
import { CliError, type CliRunner } from './runner.js';

export const runCli: CliRunner = async (opts, action, human) => {
  let ctx: BaseContext | undefined;
  try {
    ctx = await createBaseContext(loadConfig(), { log: pino({ level: 'warn' }, pino.destination(2)) });
    const result = await action(ctx);
    process.stdout.write(
      opts.json ? JSON.stringify(result) + '\n' : (human ? human(result) : JSON.stringify(result, null, 2)) + '\n',
    );
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (opts.json) process.stdout.write(JSON.stringify({ error: message }) + '\n');
    else process.stderr.write(`error: ${message}\n`);
    process.exitCode = err instanceof CliError ? 2 : 1;
  } finally {
    if (ctx) await closeBaseContext(ctx);
  }
};
