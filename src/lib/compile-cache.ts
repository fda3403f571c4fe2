import module from 'node:module';
import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Turns on Node's module compile cache (V8 code cache on disk, Node 22.1 and
 * later) for the `mensajero` CLI: a command or `serve` then skips compiling
 * the modules it ran before, most of its start-up (bench/startup.ts).
 *
 * The cache goes in a folder only this user can change, never the shared temp
 * folder Node picks by default: code cache is bytecode, so a folder another
 * account can write would let it choose what runs. NODE_COMPILE_CACHE (Node
 * has then turned it on already) and NODE_DISABLE_COMPILE_CACHE keep their
 * meaning. The folder is $XDG_CACHE_HOME/mensajero, else ~/.cache/mensajero;
 * when it cannot be made private, the CLI runs without the cache.
 * Returns the folder in use, or undefined.
 */
export function enablePrivateCompileCache(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const enable = (module as { enableCompileCache?: (dir: string) => { directory?: string } }).enableCompileCache;
  if (!enable || env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  if (env.NODE_COMPILE_CACHE) return module.getCompileCacheDir?.();
  try {
    const dir = join(privateFolder(cacheRoot(env)), 'node-compile-cache');
    return enable(privateFolder(dir)).directory;
  } catch {
    return undefined;
  }
}

function cacheRoot(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'mensajero');
}

/** Makes the folder (owner only) and checks it is this user's and nobody else can write it; throws otherwise. */
function privateFolder(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const s = statSync(dir);
  const uid = process.getuid?.();
  if (!s.isDirectory() || (uid !== undefined && s.uid !== uid) || (s.mode & 0o022) !== 0)
    throw new Error(`${dir} is not a private folder`);
  return dir;
}

/**
 * Writes what was compiled so far to the cache now rather than at exit: a
 * long-running `serve` is often stopped by a signal that skips the exit hooks.
 */
export function flushCompileCache(): void {
  (module as { flushCompileCache?: () => void }).flushCompileCache?.();
}
