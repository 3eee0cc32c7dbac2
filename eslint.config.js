// Lint is type-aware only where it pays: floating promises in a server are lost errors.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { socketErrorPath } from './scripts/lint/socket-error-path.js';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'pkg/', 'bin/', 'client/schema.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { modgate: { rules: { 'socket-error-path': socketErrorPath } } },
    rules: {
      // A raw socket handed to a handler gets an error path there (scripts/lint/socket-error-path.js
      // says what it catches and what it does not).
      'modgate/socket-error-path': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Built-ins by their node: names, so a reader never wonders whether `crypto` is a package.
      'no-restricted-imports': [
        'error',
        {
          paths: [
            'fs',
            'fs/promises',
            'path',
            'crypto',
            'http',
            'https',
            'net',
            'os',
            'util',
            'events',
            'url',
          ].map((name) => ({ name, message: `import from 'node:${name}'` })),
        },
      ],
      // esbuild keeps a re-exported namespace object whole: zod's `z` brings its 40-odd locales
      // into the binary (550 KB, a tenth of serve's start-up; docs/performance.md).
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "ImportDeclaration[source.value='zod'][importKind='value'] > :matches(ImportDefaultSpecifier, ImportSpecifier[imported.name='z'][importKind='value'])",
          message: "import * as z from 'zod'",
        },
      ],
    },
  },
);
