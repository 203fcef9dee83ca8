// ESLint flat config: typescript-eslint's recommended rules; formatting is Prettier's job.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { existsSync, readdirSync } from 'node:fs';

// Modules with a door (src/<m>/index.ts): code outside them imports only the door (docs/architecture.md;
// test/architecture.test.ts checks the same over the import graph, plus layers and circles).
const doors = readdirSync('src', { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(`src/${e.name}/index.ts`))
  .map((e) => e.name);
// `../<m>/<file>` where <file> is not a door (index.js, or a sub-module's, e.g. apps/appset/index.js).
const doorPattern = {
  regex: `^(\\.\\./)+(${doors.join('|')})/(?!(.*/)?index\\.js$)`,
  message: 'import a module from outside through its door, src/<module>/index.js',
};
// The controller's programs (rooms: src/controller/<room>/, each with its door): a room imports another
// only through its door, and never the controller's own door (test/architecture.test.ts: which rooms).
const rooms = readdirSync('src/controller', { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);
const roomPatterns = [
  {
    regex: `^\\.\\./(${rooms.join('|')})/(?!index\\.js$)`,
    message: 'import another room of src/controller through its door, ../<room>/index.js',
  },
  { regex: '^\\.\\./index\\.js$', message: "a room of src/controller never imports the controller's door" },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'oclif.manifest.json', 'conformance/.work/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [doorPattern] }],
    },
  },
  {
    files: ['src/controller/*/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [doorPattern, ...roomPatterns] }] },
  },
);
