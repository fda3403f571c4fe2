import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three forks on two cores: a fork waits most of its time (on a browser, a child process, a database, a timer), so
    // a third keeps the cores busy (541 s against 707 s with two on the same code, on a quiet host; a fourth gained
    // nothing more: docs/contributors/tests.md). Test files share their fork's module cache (isolate:
    // false): loading the service's modules once per fork rather than once per file took a third of the suite's time.
    // No test file may rely on a module's state being fresh; state lives in what each test builds (its harness).
    // As many forks kept as used: a fork above the minimum is ended when it idles, and ending a fork that shares its
    // modules can reject its pending teardown ("Terminating worker thread", vitest 3.2).
    poolOptions: { forks: { maxForks: 3, minForks: 3, isolate: false } },
  },
});
