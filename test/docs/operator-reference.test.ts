// The operator's two reference pages list everything the code offers: every environment variable the code reads is a
// row of docs/operators/configuration.md, every command the CLI registers a row of docs/operators/cli.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCommands } from '../../src/app/commands.js';
import type { CliRunner } from '../../src/cli/runner.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every non-test TypeScript file under src/, relative to the repository. */
function sourceFiles(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The variables a file reads: `process.env.X`, `process.env['X']`, `env.X`, `env['X']`. */
function variablesRead(source: string): string[] {
  const found = source.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)|\[\s*['"]([A-Z][A-Z0-9_]+)['"]\s*\])/g);
  return [...found].map((m) => m[1] ?? m[2]!);
}

/** The keys of the configuration schema (`  NAME: …` inside `z.object({ … })` of src/config.ts). */
function configKeys(source: string): string[] {
  const body = source.slice(source.indexOf('z.object({'), source.indexOf('\n});', source.indexOf('z.object({')));
  return [...body.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
}

/** Names written as code in the first cell of each table row of a Markdown page. */
function documentedNames(markdown: string): Set<string> {
  const rows = markdown.split('\n').filter((line) => line.startsWith('| `'));
  return new Set(rows.flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));
}

interface RegisteredCommand {
  path: string;
  takesArguments: boolean;
  options: string[];
}

/** Every command of a commander program by its path (`accounts create`, `carriers costs set`…; leaves only). */
function commandPaths(program: Command, prefix: string[] = []): RegisteredCommand[] {
  return program.commands.flatMap((c) => {
    const path = [...prefix, c.name()];
    if (c.commands.length > 0) return commandPaths(c, path);
    const options = c.options.flatMap((o) => (o.long ? [o.long] : []));
    return [{ path: path.join(' '), takesArguments: c.registeredArguments.length > 0, options }];
  });
}

/** The registered commands: every command module, as `--help` loads them, and those main.ts defines itself. */
async function registeredCommands(): Promise<RegisteredCommand[]> {
  const program = new Command();
  await registerCommands(program, (async () => undefined) as CliRunner, undefined);
  // main.ts's own commands (serve, migrate): their options are in its source, next to them.
  const own = [...read('src/app/main.ts').matchAll(/\.command\('([a-z-]+)'\)/g)].map((m) => ({
    path: m[1]!,
    takesArguments: false,
    options: [],
  }));
  return [...own, ...commandPaths(program)];
}

/** The commands the first cell of cli.md's table rows names: `mensajero <words>` up to the first option. */
function documentedCommands(markdown: string): Set<string> {
  const rows = markdown.split('\n').filter((line) => line.startsWith('| `mensajero '));
  return new Set(
    rows.map((row) => {
      const words = row.slice('| `mensajero '.length).split(/[ `]/);
      const end = words.findIndex((w) => !/^[a-z][a-z-]*$/.test(w));
      return words.slice(0, end === -1 ? undefined : end).join(' ');
    }),
  );
}

describe('docs/operators/configuration.md', () => {
  const documented = documentedNames(read('docs/operators/configuration.md'));
  const config = configKeys(read('src/config.ts'));

  it('reads the configuration schema and the other reads of the environment', () => {
    // The extraction itself: a schema that lost its keys would make the check below pass vacuously.
    expect(config).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'LOG_LEVEL', 'SMPP_SERVER_PORT']));
    expect(variablesRead("process.env.UV_THREADPOOL_SIZE ??= '8'; env['MENSAJERO_SECRET'];")).toEqual([
      'UV_THREADPOOL_SIZE',
      'MENSAJERO_SECRET',
    ]);
  });

  it('lists every variable the code reads', () => {
    const read_ = new Set(config);
    for (const file of sourceFiles()) for (const name of variablesRead(read(file))) read_.add(name);
    const missing = [...read_].filter((name) => !documented.has(name));
    expect(missing, 'variables read by src/ but not in docs/operators/configuration.md').toEqual([]);
  });

  it('lists each variable once', () => {
    const rows = read('docs/operators/configuration.md')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
    expect(rows.length).toBe(new Set(rows).size);
  });
});

describe('docs/operators/cli.md', () => {
  const documented = documentedCommands(read('docs/operators/cli.md'));

  it('lists every command the CLI registers', async () => {
    const registered = await registeredCommands();
    const paths = registered.map((c) => c.path);
    expect(paths).toEqual(expect.arrayContaining(['serve', 'migrate', 'accounts create', 'carriers costs set']));
    // A command that takes an argument (`carriers add <kind>`) is listed once per value: `carriers add smpp`.
    const listed = (c: RegisteredCommand) =>
      documented.has(c.path) || (c.takesArguments && [...documented].some((d) => d.startsWith(`${c.path} `)));
    const missing = paths.filter((path) => !listed(registered.find((c) => c.path === path)!));
    expect(missing, 'commands the CLI registers but docs/operators/cli.md does not list').toEqual([]);
  });

  it('lists no command the CLI does not have', async () => {
    const registered = await registeredCommands();
    const known = (path: string) =>
      registered.some((c) => c.path === path || (c.takesArguments && path.startsWith(`${c.path} `)));
    expect([...documented].filter((path) => !known(path))).toEqual([]);
  });

  it('documents every option of every command (in the list, or on the page it links to)', async () => {
    const pages = ['docs/operators', 'docs/api'].flatMap((dir) =>
      readdirSync(join(ROOT, dir)).map((name) => read(join(dir, name))),
    );
    const undocumented = (await registeredCommands()).flatMap((c) =>
      c.options.filter((o) => !pages.some((page) => page.includes(o))).map((o) => `${c.path} ${o}`),
    );
    expect(undocumented).toEqual([]);
  });

  it('documents the options of the program itself, given before the command (main.ts)', () => {
    const main = read('src/app/main.ts');
    const program = main.slice(main.indexOf("new Command('mensajero')"), main.indexOf('.exitOverride('));
    const options = [...program.matchAll(/\.option\(\s*'(--[a-z-]+)/g)].map((m) => m[1]!);
    expect(options).toContain('--env-file');
    expect(options.filter((o) => !read('docs/operators/cli.md').includes(`mensajero ${o}`))).toEqual([]);
  });
});
