// ESLint: correctness rules, no import cycles, and the layers of CONTRIBUTING.md.
// Formatting is Prettier's (.prettierrc.json); no rule here is about layout.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Files that put the process together: they alone may import routes and CLI command modules.
const wiring = ['src/main.ts', 'src/cli/commands.ts', 'src/features/index.ts', 'src/**/feature.ts'];
const tests = ['**/*.test.ts', 'test/**', 'bench/**'];

const routesAndCommands = {
  regex: '(^|/)(routes|cli)\\.js$',
  message: 'Routes and CLI commands are leaves: import the feature’s service or schemas.ts instead.',
};
const cliRunner = {
  regex: '(^|/)cli/run\\.js$',
  message: 'Panel pages answer in HTML: CliError and runCli belong to the CLI.',
};
const features = {
  regex: '(^|/)features/',
  message: 'Carriers are adapters: they import nothing from features/ (take what they need as a parameter).',
};
const webhookInternals = {
  regex: '(^|/)webhooks/(?!index\\.js$)',
  message: 'Messaging and payments reach webhooks through webhooks/index.js only.',
};

const smppServer = {
  regex: '(^|/)smpp-server/',
  message: 'The SMPP server is a front end, like routes.ts: only src/cli/serve.ts starts it.',
};

/** One block per layer; a file gets the rules of the last block it matches, so each block repeats the leaves rule. */
function layer(files, ...patterns) {
  return {
    files,
    ignores: [...wiring, ...tests],
    rules: { 'no-restricted-imports': ['error', { patterns: [routesAndCommands, smppServer, ...patterns] }] },
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
  layer(['src/panel/pages/**/*.ts'], cliRunner),
  layer(['src/messaging/**/*.ts', 'src/features/payments/**/*.ts', 'src/payments/**/*.ts'], webhookInternals),
  // The SMPP server's own files, and the one that starts it, may import it.
  {
    files: ['src/smpp-server/**/*.ts', 'src/cli/serve.ts'],
    ignores: [...wiring, ...tests],
    rules: { 'no-restricted-imports': ['error', { patterns: [routesAndCommands] }] },
  },
);
