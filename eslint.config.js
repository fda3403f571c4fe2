// ESLint: correctness rules, no import cycles, and the layers of CONTRIBUTING.md.
// Formatting is Prettier's (.prettierrc.json); no rule here is about layout.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The files that put the process together: they alone may import feature.ts modules (and, with each module's
// feature.ts, routes and CLI command modules). src/main.ts only forwards an earlier path of the command to src/app/main.ts.
const wiring = ['src/app/**/*.ts', 'src/main.ts'];
// What each module hands to src/app/: its Feature (routes, public routes, jobs).
const featureFiles = ['src/**/feature.ts'];
const tests = ['**/*.test.ts', 'test/**', 'bench/**'];

const routesAndCommands = {
  regex: '(^|/)(routes|cli)\\.js$',
  message: 'Routes and CLI commands are leaves: import the feature’s service or schemas.ts instead.',
};
// A module's feature.ts, not the Feature type (src/feature.ts, imported as ../feature.js).
const featureModules = {
  regex: '(^|/)[a-z-]+/feature\\.js$|^\\./feature\\.js$',
  message: 'A module’s feature.ts is what it hands to src/app/: only src/app/ imports it.',
};
const cliRunner = {
  regex: '(^|/)(cli/runner|app/run)\\.js$',
  message: 'Panel pages answer in HTML: CliError and runCli belong to the CLI.',
};
// src/app/ puts the process together; nothing else imports it. Command modules code against cli/runner.ts: the
// runner itself (app/run.ts) builds a context, so only app/main.ts loads it.
const runnerImpl = {
  regex: '(^|/)app/',
  message:
    'src/app/ is the wiring and nothing imports it: command modules take the runner they are given and throw CliError from cli/runner.ts.',
};
const features = {
  regex: '(^|/)features/',
  message: 'Carriers are adapters: they import nothing from features/ (take what they need as a parameter).',
};
// Carriers implement messaging's ports (ports.ts: what a submit is and answers; inbound-ports.ts: what they hand
// back) and import nothing else of it; messaging imports nothing of the carriers. smpp-protocol/encoding.js is the
// one exception: SMPP's encoding is shared with the send path.
const messagingInternals = {
  regex: '(^|/)messaging/(?!(inbound-)?ports\\.js$)',
  message: 'Carriers implement messaging’s ports: import messaging/ports.js and inbound-ports.js only.',
};
const carrierInternals = {
  regex: '(^|/)carriers/',
  message: 'Messaging imports nothing of the carriers: what they hand back is declared in messaging/inbound-ports.ts.',
};
const paymentFeatures = {
  regex: '(^|/)features/',
  message:
    'Payment providers report through the PaymentSink they are given (payment-providers/provider.ts), never to features/.',
};
const storage = {
  regex: '^kysely$|(^|/)(db|jobs)/',
  message:
    'Protocol code never writes to the database: hand what it receives to its CarrierSink, share state through Coordination (carriers/adapter.ts).',
};
// The one send call: every sender goes through messaging/send.ts, which chooses how the messages are handed over.
const sendWriter = {
  regex: '(^|/)messaging/write\\.js$',
  message: 'Send through messaging/send.js (send, submitSend): the writer alone leaves the hand-over undone.',
};
// Connectors of every kind and the HTTP plumbing they share: every folder under src/carriers/, so that a new kind is
// covered too. Their database side is a store.ts (providers/store.ts); what they receive is kept by messaging/carrier-sink.ts.
// src/smpp-protocol/ is the SMPP 3.4 protocol itself (PDUs, encoding, receipt text, times, command_status), shared by the
// carrier connector and the SMPP server.
const carrierProtocols = ['src/carriers/*/**/*.ts', 'src/smpp-protocol/**/*.ts'];
const carrierStores = ['src/carriers/*/**/store.ts', 'src/carriers/*/**/*-store.ts'];
const webhookInternals = {
  regex: '(^|/)webhooks/(?!index\\.js$)',
  message: 'Messaging and payments reach webhooks through webhooks/index.js only.',
};

// The foundation (CONTRIBUTING.md, Layers) imports nothing outside itself, type imports included: a module above adds
// its tables to Database (src/db/schema.ts) and its members to AppContext (src/context.ts) by declaration merging.
const foundationFolders = ['accounts', 'auth', 'jobs', 'http', 'db', 'text', 'phone', 'lib', 'outbound'];
const foundationFiles = ['channels.ts', 'config.ts', 'context.ts', 'feature.ts', 'cli/runner.ts', 'cli/helpers.ts'];
const foundation = [...foundationFolders, ...foundationFiles].map((name) => `src/${name}`);
// Everything else under src/ (core, features, front ends, the wiring); the CLI's command files beside runner.ts too.
const aboveFoundation = readdirSync(new URL('src', import.meta.url))
  .filter((name) => name !== 'cli' && !foundation.includes(`src/${name}`))
  .map((name) => `src/${name}`);
const foundationMessage =
  'The foundation knows nothing above it: declare the type it needs here, or let the module above add its tables or context members by declaration merging.';

// Two zones of paths: front ends call a module's service.ts or index.ts, never its store (the queries for its service);
// the foundation imports nothing above it. A separate rule from the layers' no-restricted-imports, so that it adds to
// them instead of replacing them.
const storeFiles = ['src/**/store.ts', 'src/**/*-store.ts'];
// Command modules: each module's cli.ts and the files beside it that register or parse its commands, and what they
// code against (src/cli/).
const commandModules = [
  'src/cli/**/*.ts',
  'src/**/cli.ts',
  'src/**/cli-*.ts',
  'src/**/*-cli.ts',
  'src/**/*-commands.ts',
];
const restrictedPaths = {
  files: ['src/**/*.ts'],
  ignores: tests,
  rules: {
    'import-x/no-restricted-paths': [
      'error',
      {
        zones: [
          {
            target: [
              'src/panel/pages/**/*.ts',
              'src/panel/cli.ts',
              'src/**/routes.ts',
              ...commandModules,
              // The commands of no feature, with what they run: doctor's checks open the database themselves.
              'src/doctor/**/*.ts',
              'src/backup/**/*.ts',
              'src/app/{main,commands,run,audit-hook,serve}.ts',
              'src/smpp-server/**/*.ts',
            ],
            from: storeFiles,
            message:
              'Panel pages, routes, the CLI and the SMPP server call a module’s service.ts or index.ts, never its store.',
          },
          // The panel's own files (sessions, authenticator codes, statistics) read their own stores, no other module's.
          {
            target: ['src/panel/*.ts'],
            from: storeFiles,
            except: ['**/src/panel/store.ts', '**/src/panel/*-store.ts'],
            message: 'The panel calls other modules’ service.ts or index.ts; only its own stores are its to import.',
          },
          { target: foundation, from: aboveFoundation, message: foundationMessage },
          { target: foundation, from: 'src/cli', except: ['./runner.ts', './helpers.ts'], message: foundationMessage },
        ],
      },
    ],
  },
};
// Panel pages render and handle forms; what they read and write goes through a module's service (or the panel's own
// service.ts, stats.ts, deployment.ts), which holds the context's database handle for them.
const panelStorage = {
  regex: '^kysely$|(^|/)db/|(^|/)(store|[\\w-]+-store)\\.js$',
  message: 'Panel pages hold no queries: call the owning module’s service.ts (docs/contributors/panel.md).',
};
const noDatabaseInPages = {
  files: ['src/panel/pages/**/*.ts'],
  ignores: tests,
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector: 'MemberExpression[property.name=/^(db|kysely)$/], ObjectPattern > Property[key.name=/^(db|kysely)$/]',
        message:
          'Panel pages never touch the database handle: pass the context to the owning module’s service (docs/contributors/panel.md).',
      },
    ],
  },
};
// Command modules and routes hand the database to a service, which builds the SQL: they import neither kysely nor
// src/db/ (a type for a parameter included), open no transaction and call no query builder, whatever the handle is
// named.
const sqlBuilders = /^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|transaction|executeQuery)$/;
const database = /^kysely$|(^|\/)db\//;
const noSqlInFrontEnds = {
  files: [...commandModules, 'src/**/routes.ts'],
  ignores: tests,
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector: `ImportDeclaration[source.value=${database}], ImportExpression[source.value=${database}]`,
        message:
          'Commands and routes call a module’s service.ts (or index.ts), which builds the SQL: no kysely, no src/db/.',
      },
      {
        selector: `CallExpression > MemberExpression.callee[property.name=${sqlBuilders}]`,
        message:
          'Commands and routes build no query and open no transaction: the module’s service.ts does, in one call.',
      },
      {
        selector: "CallExpression > MemberExpression.callee > MemberExpression.object[property.name='kysely']",
        message: 'Commands and routes call nothing on ctx.db.kysely: they hand it (or ctx.db) to a service.',
      },
    ],
  },
};
// The SMPP server's sessions and delivery pump hand the database to the services too; they name its type (Db) for the
// handle they are given, the one import of src/db/ they keep.
const noSqlInSmppServer = {
  files: ['src/smpp-server/**/*.ts'],
  ignores: tests,
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector: `ImportDeclaration[importKind!='type'][source.value=${database}], ImportDeclaration[source.value='kysely'], ImportExpression[source.value=${database}]`,
        message:
          'The SMPP server calls a module’s service.ts, which builds the SQL: no kysely, no src/db/ but its types.',
      },
      ...noSqlInFrontEnds.rules['no-restricted-syntax'].slice(2),
    ],
  },
};
const smppServer = {
  regex: '(^|/)smpp-server/',
  message: 'The SMPP server is a front end, like routes.ts: only src/app/serve.ts starts it.',
};

/** One block per layer; a file gets the rules of the last block it matches, so each block repeats the leaves rule. */
function layer(files, ...patterns) {
  return layerExcept(files, [], ...patterns);
}

/** A layer but for these files (they keep the rules of the blocks before). */
function layerExcept(files, except, ...patterns) {
  return {
    files,
    ignores: [...wiring, ...featureFiles, ...tests, ...except],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [routesAndCommands, featureModules, runnerImpl, smppServer, ...patterns] },
      ],
    },
  };
}

export default defineConfig(
  { ignores: ['dist/', 'coverage/', 'data/', '.tmp-*/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    plugins: { 'import-x': importX },
    settings: {
      // Parse imported .ts files to follow their imports (without it no-cycle sees no module).
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      // Value imports only (`import type` is skipped: `npm run lint:cycles` counts those). Packages cannot import us back.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // `interface X extends Y {}` is how one layer adds members to a type another declares (declaration merging).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // Kysely<any> is how migrations see a schema that changes under them; tests poke at raw answers.
      '@typescript-eslint/no-explicit-any': 'off',
      // `const { secret, ...shown } = row` drops fields on purpose; a leading _ marks a value kept unused.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // The panel's script runs in the browser beside uPlot's (loaded by the page before it).
  { files: ['src/panel/assets/**/*.js'], languageOptions: { globals: { ...globals.browser, uPlot: 'readonly' } } },
  layer(['src/**/*.ts'], sendWriter),
  layer(['src/carriers/**/*.ts'], features, messagingInternals, sendWriter),
  layerExcept(carrierProtocols, carrierStores, features, messagingInternals, storage, sendWriter),
  layer(['src/panel/pages/**/*.ts'], cliRunner, panelStorage, sendWriter),
  layer(['src/messaging/**/*.ts'], webhookInternals, carrierInternals),
  layer(['src/features/payments/**/*.ts'], webhookInternals, sendWriter),
  layer(['src/payment-providers/**/*.ts'], webhookInternals, paymentFeatures, sendWriter),
  // The SMPP server's own files may import it (and src/app/, the wiring, starts it).
  {
    files: ['src/smpp-server/**/*.ts'],
    ignores: [...wiring, ...tests],
    rules: { 'no-restricted-imports': ['error', { patterns: [routesAndCommands, featureModules, runnerImpl] }] },
  },
  // A module's feature.ts may import its routes and jobs, never another feature.ts nor the wiring.
  {
    files: featureFiles,
    ignores: tests,
    rules: { 'no-restricted-imports': ['error', { patterns: [featureModules, runnerImpl, smppServer] }] },
  },
  restrictedPaths,
  noSqlInFrontEnds,
  noSqlInSmppServer,
  noDatabaseInPages,
);
