// Bundles the `mensajero` command (src/app/main.ts) with esbuild into dist/bundle/: what the bin, `npm start` and the
// smoke run execute. Loading one file per module was most of a command's start-up (docs/contributors/performance.md).
// ESM with code splitting, so what main.ts and the command table load on demand (`serve`, each command's module,
// each migration) stays a separate chunk loaded only when used. Native and optional modules stay in node_modules.
// Files read at run time (the panel's assets, package.json) are found by walking up to package.json, which works
// from dist/bundle as from src.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const outdir = join(root, 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/app/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  chunkNames: 'chunks/[name]-[hash]',
  // Loaded from node_modules at run time: native addons and optional peers (better-sqlite3, pg-native), and packages
  // that read their own files by a path relative to their source (__dirname), which a bundle would break: pino's
  // worker files, ioredis' and @fastify/swagger's package.json, swagger-ui's static files, smpp (src/smpp-protocol/pdu.ts).
  external: ['better-sqlite3', 'pg-native', 'smpp', 'pino', 'ioredis', '@fastify/swagger', '@fastify/swagger-ui'],
  // CommonJS packages inside an ES module bundle call require() for Node's own modules: give each chunk one.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  legalComments: 'none',
  sourcemap: 'linked',
  logLevel: 'warning',
});
