import js from '@eslint/js'
import tseslint from 'typescript-eslint'

const SERVER_NOT_CLI = {
  regex: '(^|/)src/(cli|ui)/',
  message: 'The simulator does not import the CLI: shared knowledge lives in a neutral module (src/money.ts, src/time.ts, src/duration.ts).',
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'oclif.manifest.json', 'test-artifacts/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Time and chance in the simulator come from one place each: the
      // injected clock (server/clock) and server/ids.ts.
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read time through the injected clock (server/clock), never Date.now().',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read time through the injected clock (server/clock), never new Date().',
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'Take randomness from server/ids.ts (the system CSPRNG), never Math.random().',
        },
        {
          selector: "ImportDeclaration[source.value=/^(node:)?crypto$/] > ImportSpecifier[imported.name=/^(random|getRandomValues)/]",
          message: 'Take ids, secrets and tokens from server/ids.ts, the one module that draws random bytes.',
        },
        {
          selector: "CallExpression[callee.object.name='crypto'][callee.property.name=/^(random|getRandomValues)/]",
          message: 'Take ids, secrets and tokens from server/ids.ts, the one module that draws random bytes.',
        },
      ],
    },
  },
  // The walls of the house (docs/architecture.md): the simulator never reaches
  // into the CLI; the store never into what runs on it; HTTP never into the
  // store. A later block for the same rule replaces an earlier one, so each
  // repeats the server-wide wall. test/unit/architecture.test.ts breaks each.
  {
    files: ['server/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SERVER_NOT_CLI] }] },
  },
  {
    files: ['server/store/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            SERVER_NOT_CLI,
            { regex: '^\\.\\./(services|events|clock|http)/', message: 'The store knows documents, not what runs on them: take types from server/domain/.' },
          ],
        },
      ],
    },
  },
  {
    files: ['server/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [SERVER_NOT_CLI, { regex: '(^|/)store/', message: 'HTTP reaches data through services, and commits through runCommitted() (server/http/handle.ts).' }] },
      ],
    },
  },
  {
    // bula-tools/testing exports the conformance suite, which reaches its target over HTTP only.
    files: ['src/conformance/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(\\.\\./)+(cli|ui)/', message: 'The conformance suite does not import the CLI: bula-tools/testing exports it.' },
            { regex: '(^|/)server/', message: 'The conformance suite talks to its target over HTTP only: the same suite a user runs against another service.' },
          ],
        },
      ],
    },
  },
  {
    // A CLI command starts in a fraction of a second only if it leaves zod
    // and the schemas unloaded (about 50 ms of its start):
    // commands and their helpers take types from the schemas, and values from
    // the zod-free src/schemas/enums.ts. Commands that read a user's file
    // (fixtures, imports) check it through a module of their own.
    files: ['commands/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['zod'], allowTypeImports: true, message: 'Take types only: loading zod costs every command about 50 ms of its start.' },
            { regex: '(^|/)schemas/(?!enums\\.js$)', allowTypeImports: true, message: 'Take types from the schemas and values from src/schemas/enums.ts: the schemas load zod.' },
          ],
        },
      ],
    },
  },
  {
    // The clock module is the one place that reads wall time; the CLI and
    // tests live outside the simulator's time rules.
    files: ['server/clock/**', 'server/ids.ts', 'src/**', 'commands/**', 'test/**', 'bench/**', 'bin/**', 'scripts/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // The sample receiver and CI project are the merchant's code, not the simulator's: plain Node.js with its own clock and randomness.
    files: ['templates/receiver/**/*.mjs', 'templates/ci/**/*.js'],
    languageOptions: { globals: { Buffer: 'readonly' } },
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // The CI recipes' sample project: a merchant's own test on Node's test runner.
    files: ['templates/ci/**/*.js'],
    languageOptions: { globals: { fetch: 'readonly' } },
  },
  {
    // The dashboard's one script runs in the browser.
    files: ['templates/dashboard/*.js'],
    languageOptions: { globals: { document: 'readonly', window: 'readonly', fetch: 'readonly', setInterval: 'readonly' }, sourceType: 'script' },
  },
)
