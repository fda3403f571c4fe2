// ESLint: correctness rules, no import cycles, and the layers of CONTRIBUTING.md.
// Formatting is Prettier's (.prettierrc.json); no rule here is about layout.
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
const storage = {
  regex: '^kysely$|(^|/)(db|jobs)/',
  message:
    'Protocol code never writes to the database: hand what it receives to its CarrierSink, share state through Coordination (carriers/adapter.ts).',
};
// Connectors of each kind and the HTTP plumbing they share; their database side is carriers/*-store.ts and database-sink.ts.
const carrierProtocols = [
  'src/carriers/smpp/**/*.ts',
  'src/carriers/whatsapp-cloud/**/*.ts',
  'src/carriers/twiml-voice/**/*.ts',
  'src/carriers/simulator/**/*.ts',
  'src/carriers/providers/connector.ts',
  'src/carriers/providers/webhooks.ts',
];
const webhookInternals = {
  regex: '(^|/)webhooks/(?!index\\.js$)',
  message: 'Messaging and payments reach webhooks through webhooks/index.js only.',
};

// Stores hold a module's queries for its service: front ends call service.ts or index.ts. A separate rule from the
// layers' no-restricted-imports, so that it adds to them instead of replacing them.
const storeFiles = ['src/**/store.ts', 'src/**/*-store.ts'];
const noStoresInFrontEnds = {
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
              'src/cli/**/*.ts',
              'src/app/{main,commands,run,audit-hook,serve}.ts',
            ],
            from: storeFiles,
            message: 'Panel pages, routes and the CLI call a module’s service.ts or index.ts, never its store.',
          },
          // The panel's own files (sessions, authenticator codes, statistics) read their own stores, no other module's.
          {
            target: ['src/panel/*.ts'],
            from: storeFiles,
            except: ['**/src/panel/store.ts', '**/src/panel/*-store.ts'],
            message: 'The panel calls other modules’ service.ts or index.ts; only its own stores are its to import.',
          },
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
const smppServer = {
  regex: '(^|/)smpp-server/',
  message: 'The SMPP server is a front end, like routes.ts: only src/app/serve.ts starts it.',
};

/** One block per layer; a file gets the rules of the last block it matches, so each block repeats the leaves rule. */
function layer(files, ...patterns) {
  return {
    files,
    ignores: [...wiring, ...featureFiles, ...tests],
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
  layer(['src/**/*.ts']),
  layer(['src/carriers/**/*.ts'], features),
  layer(carrierProtocols, features, storage),
  layer(['src/panel/pages/**/*.ts'], cliRunner, panelStorage),
  layer(['src/messaging/**/*.ts', 'src/features/payments/**/*.ts', 'src/payments/**/*.ts'], webhookInternals),
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
  noStoresInFrontEnds,
  noDatabaseInPages,
);
