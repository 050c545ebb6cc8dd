// ESLint flat config: typescript-eslint's type-checked rules over the whole
// workspace, run by `pnpm lint` (and so by .ci/run). One program for the
// server side (tsconfig.eslint.json: sources, tests, scripts; packages resolve
// to their sources, so lint needs no build), one for the operator console.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TESTS = ['test/**', 'packages/*/test/**', 'services/*/test/**'];
const UNSAFE_ANY = {
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/*.d.ts', 'test/bench/out/**', '**/coverage/**'] },
  // A disable comment for a rule that does not fire is an error, so every one left names a rule that runs.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
      parserOptions: { project: ['./tsconfig.eslint.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // The rules this configuration exists for: a promise nobody awaits or catches loses its error.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Off: the stores, bus and tool providers implement async interfaces, and their in-memory twins
      // answer without awaiting; `async` keeps a throw a rejection. Rewriting ~200 of them buys nothing.
      '@typescript-eslint/require-await': 'off',
      // Off: factories return objects of closures (STYLE.md lesson 10) that interfaces declare in
      // method syntax, so destructuring `{ store, register }` or passing `cache.get` on is safe; the
      // rule cannot tell them from class methods, and no class method here is passed unbound.
      '@typescript-eslint/unbound-method': 'off',
      // Services log through pino; what prints on purpose (CLI output, bench reports) says so.
      'no-console': 'error',
      // A package's or service's public surface is its entry point (DESIGN.md "Layout").
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@hookyard/*/dist', '@hookyard/*/dist/**', '@hookyard/*/src', '@hookyard/*/src/**'],
              message: "Import from the package's entry point; export what is needed from its src/index.ts (a service's src/start.ts).",
            },
          ],
        },
      ],
      // `_`-prefixed names are unused on purpose (interface-shaped parameters, skipped tuple members).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['packages/console/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: { project: ['./packages/console/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: TESTS,
    // Off in tests: they read JSON answers, logs and fixtures as `any` on purpose and assert on
    // them; typing every answer would be a sweeping change for no caught bug. With the unsafe
    // family off, an explicit `any` says no more than an inferred one, so that rule is off too.
    rules: { ...UNSAFE_ANY, '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    // Plain CommonJS (workers, the bin shim, benches, fixtures): `require` is how they load,
    // and nothing they hold has a type, so the unsafe-any family would flag every line.
    rules: { '@typescript-eslint/no-require-imports': 'off', ...UNSAFE_ANY },
  },
  {
    files: ['test/bench/**/*.js', 'test/perf/**/*.js', 'test/console/measure-first-render.js', 'packages/*/test/*.js'],
    // Measurement scripts: printing their report is what they are for.
    rules: { 'no-console': 'off' },
  },
  {
    files: ['eslint.config.mjs', 'jest.config.js', 'packages/console/vite.config.mts'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
