import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only queue on the databases. Test files share their fork's module cache (isolate:
    // false): loading the service's modules once per fork rather than once per file took a third of the suite's time.
    // No test file may rely on a module's state being fresh; state lives in what each test builds (its harness).
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
  },
});
