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
      'no-restricted-imports': [
        'error',
        {
          // `../<m>/<file>` where <file> is not a door (index.js, or a sub-module's, e.g. apps/appset/index.js).
          patterns: [
            {
              regex: `^(\\.\\./)+(${doors.join('|')})/(?!(.*/)?index\\.js$)`,
              message: 'import a module from outside through its door, src/<module>/index.js',
            },
          ],
        },
      ],
    },
  },
);
