import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * The panel's static files, built at install (`npm run build`, run by
 * `prepare`) into dist/panel-assets/ under content-hashed names listed in
 * manifest.json: each name changes when its content does, so browsers may
 * keep them for a year.
 */
export interface PanelAssets {
  /** The URL of a logical asset name (panel.js, panel.css, uPlot.iife.min.js, uPlot.min.css). */
  url(name: string): string;
}

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

function projectRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + import.meta.dirname);
    dir = up;
  }
  return dir;
}

/** Read once, at the first panel request: a process that never serves the panel never needs the build. */
export function loadAssets(): { assets: PanelAssets; files: Map<string, Buffer> } {
  const dir = join(projectRoot(), 'dist', 'panel-assets');
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath))
    throw new Error(`the panel's assets are not built (${manifestPath} is missing): run npm run build`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, string>;
  const files = new Map<string, Buffer>();
  for (const hashed of Object.values(manifest)) files.set(hashed, readFileSync(join(dir, hashed)));
  return {
    files,
    assets: {
      url(name) {
        const hashed = manifest[name];
        if (!hashed) throw new Error(`unknown panel asset ${name}`);
        return `/panel/assets/${hashed}`;
      },
    },
  };
}

export function assetRoutes(scope: FastifyInstance, files: () => Map<string, Buffer>): void {
  scope.get('/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const { file } = request.params as { file: string };
    const body = files().get(file);
    if (!body) return reply.code(404).type('text/plain').send('not found');
    return reply
      .type(TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(body);
  });
}
