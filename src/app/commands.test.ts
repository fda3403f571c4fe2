import { Command } from 'commander';
import { expect, it } from 'vitest';
import { commandModules, registerCommands } from './commands.js';
import type { CliRunner } from '../cli/runner.js';

const run: CliRunner = async () => undefined;

it('each command module registers exactly the top-level names it is listed under', async () => {
  for (const m of commandModules) {
    const program = new Command();
    (await m.load())(program, run);
    expect(program.commands.map((c) => c.name())).toEqual(m.names);
  }
  const names = commandModules.flatMap((m) => m.names);
  expect(new Set(names).size).toBe(names.length);
});

it('a command loads only its module; help and unknown names load them all', async () => {
  const one = new Command();
  await registerCommands(one, run, 'webhooks');
  expect(one.commands.map((c) => c.name())).toEqual(['webhooks', 'events']);
  for (const name of ['--help', 'help', 'no-such-command', undefined]) {
    const all = new Command();
    await registerCommands(all, run, name);
    expect(all.commands.map((c) => c.name())).toEqual(commandModules.flatMap((m) => m.names));
  }
});

it('a command the program defines itself (serve, migrate) loads no command module', async () => {
  const program = new Command();
  program.command('serve');
  await registerCommands(program, run, 'serve');
  expect(program.commands.map((c) => c.name())).toEqual(['serve']);
});
