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

// One way to keep a member private: the ES `#name`, which is private at run time too. TypeScript's
// `private` stays only on a constructor (ES has no private constructor) that a static factory
// calls.
const TS_PRIVATE = [
  'TSParameterProperty[accessibility="private"]',
  'PropertyDefinition[accessibility="private"]',
  'MethodDefinition[accessibility="private"][kind!="constructor"]',
].map((selector) => ({ selector, message: 'use an ES #private member, not TypeScript private' }));

/** The daemon and CLI files that open files outside the data dir, each for the reason given. */
const OPENS_OUTSIDE_DATA_DIR = [
  'daemon/store/data-dir-fs.ts', // the helper itself
  'daemon/store/user-name.ts', // /etc/passwd
  'daemon/config/config.ts', // the operator's config file
  'daemon/http/tls-files.ts', // the TLS certificate and key
  'cli/service/doctor/tls-checks.ts', // the same
  'cli/service/install.ts', // systemd units, the env file, logrotate
  'cli/port-holder.ts', // /proc
  'cli/docs-command.ts', // docs/*.md
  'cli/mod-test-command.ts', // the --junit report
  'cli/release/release-source.ts', // file:// release directories
  'cli/release/self-update.ts', // the binary it replaces
];

// One write path (docs/architecture.md, "One way into the data dir"): a command changes the data
// dir through the admin API only (withAdmin in cli/admin-client.ts: the daemon's, or the same
// pipeline in-process), never by writing a data file itself. (A hash's update is called on the
// createHash() call, which these selectors leave alone.)
const CLI_DATA_DIR_WRITES = [
  "CallExpression[callee.property.name='update'][callee.object.type!='CallExpression']",
  "CallExpression[callee.name='writeDataFile']",
].map((selector) => ({
  selector,
  message: 'change the data dir through the admin API (withAdmin, cli/admin-client.ts), not by writing it',
}));

// esbuild keeps a re-exported namespace object whole: zod's `z` brings its 40-odd locales into the
// binary (550 KB, a tenth of serve's start-up; docs/performance.md).
const ZOD_NAMESPACE = {
  selector:
    "ImportDeclaration[source.value='zod'][importKind='value'] > :matches(ImportDefaultSpecifier, ImportSpecifier[imported.name='z'][importKind='value'])",
  message: "import * as z from 'zod'",
};

/**
 * The layers and the top-level folders each may not import (docs/architecture.md): protocol/ is
 * the bottom; daemon/ and mod-sim/ are the two ends of the link and know nothing of each other;
 * cli/ is the program that wires them together; mod-test/ plays the daemon end from protocol/
 * alone; bridge/ is the mod end, on protocol/ alone; harness/ starts them for test/ and bench/.
 */
const LAYER_RULES = [
  { layer: 'protocol', forbidden: ['daemon', 'mod-sim', 'cli', 'bridge'] },
  { layer: 'bridge', forbidden: ['daemon', 'mod-sim', 'cli', 'mod-test', 'client', 'scripts'] },
  { layer: 'daemon', forbidden: ['mod-sim', 'cli'] },
  { layer: 'mod-sim', forbidden: ['daemon', 'cli'] },
  { layer: 'mod-test', forbidden: ['daemon', 'mod-sim', 'cli'] },
  { layer: 'bench', forbidden: ['test'] },
  { layer: 'harness', forbidden: ['test', 'bench'] },
  { layer: 'client', forbidden: ['scripts', 'daemon', 'mod-sim', 'cli', 'harness'] },
  // Browser code: it gets the daemon's vocabulary from the bundler (daemon/admin/panel/panel-bundle.ts).
  {
    layer: 'panel',
    forbidden: [
      'daemon',
      'cli',
      'mod-sim',
      'protocol',
      'bridge',
      'client',
      'harness',
      'scripts',
      'test',
      'bench',
    ],
  },
];

/** A relative path that climbs out into one of the folders (a layer has no sub-folder of those names). */
function forbiddenPath(forbidden) {
  return `^(\\.\\./)+(${forbidden.join('|')})(/|$)`;
}

function boundaryMessage(layer, forbidden) {
  return `${layer}/ imports none of ${forbidden.map((folder) => `${folder}/`).join(', ')} (docs/architecture.md)`;
}

/** no-restricted-imports options for a layer's files: `paths` plus the layer's forbidden folders. */
function importRule(layer, paths) {
  const forbidden = LAYER_RULES.find((rule) => rule.layer === layer)?.forbidden ?? [];
  const message = boundaryMessage(layer, forbidden);
  const patterns = forbidden.length === 0 ? [] : [{ regex: forbiddenPath(forbidden), message }];
  return ['error', { paths, patterns }];
}

/**
 * no-restricted-syntax for a layer's files: the zod rule, the #private rule, and `import()` of a
 * forbidden folder.
 */
function syntaxRule(layer) {
  const forbidden = LAYER_RULES.find((rule) => rule.layer === layer)?.forbidden ?? [];
  if (forbidden.length === 0) return ['error', ZOD_NAMESPACE, ...TS_PRIVATE];
  const dynamic = {
    // esquery's /regex/ may hold no slash at all, escaped or not: \x2F stands for one.
    selector: `ImportExpression[source.value=/${forbiddenPath(forbidden).replaceAll('/', '\\x2F')}/]`,
    message: boundaryMessage(layer, forbidden),
  };
  return ['error', ZOD_NAMESPACE, ...TS_PRIVATE, dynamic];
}

/** One config per layer: its import boundaries on top of the rules every file has. */
const LAYER_CONFIGS = LAYER_RULES.map(({ layer }) => ({
  files: [`${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': importRule(layer, NODE_NAMES),
    'no-restricted-syntax': syntaxRule(layer),
  },
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/**', 'pkg/**', 'bin/**', 'client/schema.ts', 'panel/admin-schema.ts'] },
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
      'no-restricted-syntax': ['error', ZOD_NAMESPACE, ...TS_PRIVATE],
    },
  },
  ...LAYER_CONFIGS,
  // No function in daemon/, cli/, panel/ or mod-test/ over 100 lines, blank lines and comments aside
  // (docs/architecture.md, "The pipeline and start-up"): past that a function hides its steps in
  // its own inner functions.
  {
    files: ['daemon/**/*.ts', 'cli/**/*.ts', 'panel/**/*.ts', 'mod-test/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['cli/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ZOD_NAMESPACE, ...TS_PRIVATE, ...CLI_DATA_DIR_WRITES] },
  },
  ...['daemon', 'cli'].map((layer) => ({
    files: [`${layer}/**/*.ts`],
    ignores: OPENS_OUTSIDE_DATA_DIR,
    rules: { 'no-restricted-imports': importRule(layer, [...NODE_NAMES, ...DATA_DIR_OPENS]) },
  })),
);
