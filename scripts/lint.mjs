// `npm run lint`: ESLint beside Prettier's check, madge's cycles and the docs check. They are independent and mostly
// single-threaded: on two cores the two lanes take the time of the longest (ESLint) instead of the sum. Each check's
// output is printed whole once it ends; the exit code is non-zero when any check failed.
import { spawn } from 'node:child_process';

const lanes = [
  [['eslint', '.']],
  [
    ['prettier', '--check', '.'],
    ['npm', 'run', '--silent', 'lint:cycles'],
    ['npm', 'run', '--silent', 'lint:docs'],
  ],
];

function run([command, ...args]) {
  return new Promise((resolve) => {
    const bin = command === 'npm' ? 'npm' : `node_modules/.bin/${command}`;
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => resolve({ code: 1, output: `${output}${err.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  }).then(({ code, output }) => {
    process.stdout.write(`> ${command} ${args.join(' ')}\n${output}`);
    return code;
  });
}

const codes = await Promise.all(
  lanes.map(async (lane) => {
    const results = [];
    for (const step of lane) results.push(await run(step));
    return results;
  }),
);
const failed = codes.flat().some((code) => code !== 0);
if (failed) console.error('lint failed');
process.exit(failed ? 1 : 0);
