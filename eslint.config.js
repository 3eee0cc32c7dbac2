// Lint is type-aware only where it pays: floating promises in a server are lost errors.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { socketErrorPath } from './scripts/lint/socket-error-path.js';

// Built-ins by their node: names, so a reader never wonders whether `crypto` is a package.
const NODE_NAMES = [
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
].map((name) => ({ name, message: `import from 'node:${name}'` }));

// Files in the data dir are opened through daemon/store/data-dir-fs.ts only (O_NOFOLLOW: a link
// planted there must not aim the daemon's writes elsewhere; docs/data-dir.md).
const DATA_DIR_OPENS = ['node:fs', 'node:fs/promises'].map((name) => ({
  name,
  importNames: [
    ...['open', 'openSync', 'readFile', 'readFileSync', 'writeFile', 'writeFileSync', 'appendFile'],
    ...['appendFileSync', 'createReadStream', 'createWriteStream', 'truncate', 'truncateSync'],
  ],
  message: 'open data-dir files through daemon/store/data-dir-fs.ts (O_NOFOLLOW)',
}));

/** The daemon files that open files outside the data dir, each for the reason given. */
const OPENS_OUTSIDE_DATA_DIR = [
  'daemon/store/data-dir-fs.ts', // the helper itself
  'daemon/store/user-name.ts', // /etc/passwd
  'daemon/config/config.ts', // the operator's config file
  'daemon/daemon.ts', // the TLS certificate and key
  'daemon/service/doctor/tls-checks.ts', // the same
  'daemon/service/install.ts', // systemd units, the env file, logrotate
  'daemon/cli/port-holder.ts', // /proc
  'daemon/cli/docs-command.ts', // docs/*.md
];

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
      'no-restricted-imports': ['error', { paths: NODE_NAMES }],
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
  {
    files: ['daemon/**/*.ts'],
    ignores: OPENS_OUTSIDE_DATA_DIR,
    rules: { 'no-restricted-imports': ['error', { paths: [...NODE_NAMES, ...DATA_DIR_OPENS] }] },
  },
);
