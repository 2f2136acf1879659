import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through AppConfig (src/config).' }],
    },
  },
  {
    files: ['src/config/**', 'test/**', 'bench/**', 'ormconfig.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The console is a browser app (console/): the page's globals, not Node's.
    files: ['console/src/**'],
    languageOptions: { globals: globals.browser },
  },
  {
    // The test runner is plain JavaScript (it runs before anything is built) on Node.
    files: ['**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
);
