import { writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Loaded into `mensajero serve` by the memory bench (node --import): on
 * SIGUSR2 a full garbage collection, then the heap in use written to
 * MEMORY_BENCH_HEAP_FILE. RSS alone counts the garbage V8 has not collected
 * yet when the process goes idle, tens of MB either way from one run to the next.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
process.on('SIGUSR2', () => {
  gc();
  writeFileSync(process.env.MEMORY_BENCH_HEAP_FILE!, String(process.memoryUsage().heapUsed));
});
