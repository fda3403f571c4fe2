import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../../../test/helpers/harness.js';
import { cliEnv, runMensajero, type CliEnv } from '../../../test/helpers/cli.js';

/** The built `mensajero dnc` command: --json prints one object, the readable output lists numbers, mistakes exit 2. */
describeEngines('mensajero dnc (built command)', (engine) => {
  let e: CliEnv;
  beforeAll(async () => {
    e = await cliEnv(engine, {}, { migrated: true });
  });
  afterAll(() => e.cleanup());
  const mensajero = (...args: string[]) => runMensajero(['dnc', ...args], e.env);

  it('adds and lists as JSON and as text; a bad number is an operator mistake', async () => {
    expect((await mensajero('add', '--number', '525512345678', '--json')).json).toEqual({ number: '525512345678' });
    expect((await mensajero('add', '--number', '14155550100')).stdout).toBe(
      '14155550100 is on the do-not-contact list\n',
    );
    expect((await mensajero('list', '--json')).json).toEqual({ numbers: ['14155550100', '525512345678'] });
    expect((await mensajero('list', '--limit', '1')).stdout).toBe('14155550100\n(more: --after 14155550100)\n');
    const bad = await mensajero('add', '--number', '+5255', '--json');
    expect(bad.code).toBe(2);
    expect(bad.json.error).toMatch(/is not a full international number/);
  });
});
