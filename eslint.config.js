// ESLint finds bugs; Prettier owns the layout (.prettierrc.json), so the only layout rule here is the line
// length, for what Prettier does not wrap (comments). Typed rules (no-floating-promises) run on src/ only.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['node_modules/', 'out/', 'dist/', 'release/', '.ci/', 'packages/receiver/dist/', 'tests/fixtures/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // One line length for the codebase, Prettier's printWidth. Strings, template literals, URLs and regular
      // expressions may run past it: cutting them would make them harder to read and to search for.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true },
      ],
      // tsc --strict is the type gate; `any` is kept where it is the honest type (rows of SQL, test bodies).
      '@typescript-eslint/no-explicit-any': 'off',
      // A leading underscore names what is there on purpose but unused (a rest sibling dropped from a copy).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Header, XML and body validation looks for control characters on purpose.
      'no-control-regex': 'off',
      // Tests match the CLI's column output as printed, two spaces and all.
      'no-regex-spaces': 'off',
      // Prettier decides where lines break (it may start a line with `[` or `(`).
      'no-unexpected-multiline': 'off',
      // A `let` read by closures before its one assignment cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.node.json', './tsconfig.web.json'], tsconfigRootDir: import.meta.dirname },
    },
    // A promise nobody awaits loses its rejection (an unhandled rejection ends the process): await it, return it,
    // or end it with .catch(report). `void` marks one that cannot reject, with a comment saying why.
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
);
