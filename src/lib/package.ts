import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version in Mensajero's package.json, found by walking up from this
 * module: the same code runs as src/lib (tests) and dist/src/lib (the build),
 * so a fixed relative path would be right in one of them only.
 */
export function packageVersion(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mensajero' && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) throw new Error(`Mensajero's package.json not found above ${import.meta.dirname}`);
  }
}
