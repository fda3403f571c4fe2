// Builds the account panel's static files into dist/panel-assets/ with
// content-hashed names and a manifest (run by `npm run build`, hence at install).
// The chart library is copied from node_modules: nothing is fetched from a CDN.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const sources = [
  'src/panel/assets/panel.js',
  'src/panel/assets/panel.css',
  'node_modules/uplot/dist/uPlot.iife.min.js',
  'node_modules/uplot/dist/uPlot.min.css',
];
const out = 'dist/panel-assets';
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const manifest = {};
for (const source of sources) {
  const body = readFileSync(source);
  const name = basename(source);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = name.indexOf('.');
  const hashed = `${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
  writeFileSync(join(out, hashed), body);
  manifest[name] = hashed;
}
writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
