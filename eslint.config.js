// typescript-eslint with type information and an import-cycle check; `npm run lint` runs it with knip.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'test-output/',
      '.data*/',
      '.wrangler/',
      'drizzle/',
      'scripts/gazetteer/',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-cycle': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // The store, database and fetch ports are async interfaces; an in-memory adapter or a stub fulfils
      // them without awaiting anything, and wrapping each return in Promise.resolve says nothing more.
      '@typescript-eslint/require-await': 'off',
      // Input cleaning strips C0 control characters on purpose (plainText, titles, header values).
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read response bodies as parsed JSON (`any`) and assert on them field by field; typing each body
    // would restate the OpenAPI schemas the contract tests already check.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // expect(spy.method) and destructured harness helpers never depend on `this`.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
);
