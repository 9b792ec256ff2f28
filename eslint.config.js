import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // test/typed-client/ compiles against types its test generates (see test/typed-client.test.ts).
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'dist/**',
      'web/dist/**',
      'web/src/api/schema.d.ts',
      'bin/**',
      'test/typed-client/**',
      // The team's reference program, kept byte for byte as ../shared/bench has it.
      'bench/anchor-fastify-sqlite.mjs',
      'bench/anchor-fastify-pg.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/only-throw-error': 'off',
      // Fastify hooks and handlers are async by contract, with or without an await inside.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // SQL lives in repositories (*.repository.ts), the database layer and the queue adapters: a
    // service states what it wants of the data by a repository function's name.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.repository.ts', 'src/db/**', 'src/jobs/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression > MemberExpression.callee > Identifier.property[name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom)$/]',
          message:
            'Query builders belong in a *.repository.ts file (or src/db, src/jobs): add a function there.',
        },
        {
          selector: "TaggedTemplateExpression[tag.name='sql']",
          message: 'SQL belongs in a *.repository.ts file (or src/db, src/jobs): add a function there.',
        },
      ],
    },
  },
  {
    // Tests read JSON response bodies; typing every body would add noise, not safety.
    files: ['test/**/*.ts', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['*.js', '*.cjs', '*.config.ts', 'web/vite.config.ts', 'bench/*.mjs', 'examples/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['examples/*.mjs'],
    languageOptions: { globals: { console: 'readonly', Buffer: 'readonly', process: 'readonly' } },
  },
  {
    files: ['*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
);
