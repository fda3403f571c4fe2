#!/usr/bin/env node
// An earlier path of the command: a checkout's build ran dist/src/main.js, and a unit or script that still names it
// keeps working (docs/operators/upgrades.md). The command itself is src/app/main.ts.
await import('./app/main.js');
