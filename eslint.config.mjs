import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/** One `no-restricted-imports` block per layer of the edge, each for its own folders only. */
function edgeLayers(layers) {
  return layers.map(({ files, ignores = [], patterns }) => ({
    files,
    ignores,
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  }));
}

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'coverage/**', 'libs/proto/src/gen/**', 'data/**', '.nx/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-console': 'error',
    },
  },
  {
    // Module boundaries, by the tags in each project.json: a component (identity, loyalty,
    // checkout, inventory) builds on libs only, so it reaches another component only through the
    // facade in @storefront/proto; the edge (gateway) and the other apps likewise; only the host
    // (platform), which places components in processes, may import components and the edge; a lib
    // builds on libs only; only test code (the type:test projects, and each project's test folder)
    // may reach into anything. The graph behind the circularity check is the package.json dependencies.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts', 'testing/*/src/**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          depConstraints: [
            { sourceTag: 'type:component', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:edge', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:host', onlyDependOnLibsWithTags: ['type:lib', 'type:component', 'type:edge'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:test', onlyDependOnLibsWithTags: ['*'] },
          ],
        },
      ],
    },
  },
  // The edge's layers (docs/decisions/1010), by folder under apps/gateway/src: the kit is the bottom and imports only
  // itself; the application imports only the kit; a feature (and each console area) imports only the kit, the
  // application and itself. Any of them may import the composition root's shared types (context, config, clients);
  // only the root imports features.
  ...edgeLayers([
    {
      files: ['apps/gateway/src/kit/**/*.ts'],
      patterns: [
        {
          regex: '^\\.\\./(?!(context|config|clients)$)',
          message: 'The kit imports no application or feature module; take what it needs as a parameter.',
        },
      ],
    },
    {
      files: ['apps/gateway/src/application/**/*.ts'],
      patterns: [
        {
          regex: '^\\.\\./(?!(kit/|(context|config|clients)$))',
          message: 'The application imports only the kit; a feature passes in what it needs.',
        },
      ],
    },
    {
      files: ['apps/gateway/src/*/*.ts'],
      ignores: ['apps/gateway/src/{kit,application,cli}/**'],
      patterns: [
        {
          regex: '^\\.\\./(?!(kit/|application/|(context|config|clients)$))',
          message:
            'A feature imports only the kit and the application; what all features declare is passed ' +
            'in by the composition root.',
        },
      ],
    },
    {
      files: ['apps/gateway/src/*/*/*.ts'],
      ignores: ['apps/gateway/src/{kit,application,cli}/**'],
      patterns: [
        {
          regex: '^\\.\\./\\.\\./(?!(kit/|application/|(context|config|clients)$))',
          message:
            'A feature imports only the kit and the application; what all features declare is passed ' +
            'in by the composition root.',
        },
        {
          regex: '^\\.\\./(index$|[^./][^/]*/)',
          message:
            "An area imports only its feature's shared modules, never another area; " +
            'its feature hands it what it needs.',
        },
      ],
    },
  ]),
  {
    // SQL text is written as literals and every value is bound: store connections accept several
    // statements in one packet (batched transactions), so no value may ever be spliced into SQL.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name=/^(raw|whereRaw|andWhereRaw|orWhereRaw|havingRaw|orderByRaw|joinRaw|selectRaw)$/] > :matches(TemplateLiteral[expressions.length>0], BinaryExpression[operator='+']).arguments:first-child",
          message: 'Write SQL as a literal and bind values (?) or identifiers (??); never build SQL text from values.',
        },
      ],
    },
  },
  {
    // A component's domain speaks its own types: the facade's generated messages are mapped where
    // the facade is bound (server.ts and the modules beside it) and in clients, and the domain
    // depends on neither its config nor its server, which depend on it (docs/decisions/1000).
    files: ['apps/*/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@storefront/proto', '@storefront/proto/*'],
              message: 'Domain modules use their own types; map proto messages in server.ts or beside it.',
            },
            {
              group: ['../config', '../server', '../messages'],
              message: "The domain does not depend on its component's config or facade; they depend on it.",
            },
          ],
        },
      ],
    },
  },
  {
    // chai's property assertions (`.to.be.empty`) read as expressions.
    files: ['**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
  {
    files: ['scripts/**/*.mjs', '.ci/**/*.mjs', 'deploy/**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        AbortSignal: 'readonly',
      },
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      globals: { module: 'writable', require: 'readonly', __dirname: 'readonly', process: 'readonly' },
    },
  },
);
