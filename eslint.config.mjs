/**
 * ESLint for Figure Chat: typescript-eslint's recommended rules, the Jupyter plugin's recommended
 * rules (plugin and command conventions, translations), Prettier for layout, and the layers of
 * SPEC.md section 2 enforced through restricted imports.
 */
import jupyter from '@jupyter/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const DOM_AND_LAB = ['@jupyterlab/*', '@lumino/*'];

/**
 * The figure server's parts, bottom to top, each with the parts it may import; the entry files
 * (main, serve, app, routes, warm-up, version) sit in src/server itself, above all of them. Arrows
 * go one way: a part never imports the entry or a part that is not listed for it.
 */
const SERVER_PARTS = {
  http: [],
  pictures: ['http'],
  svg: ['http'],
  model: ['http'],
  render: ['http', 'pictures', 'svg'],
  notebook: ['http', 'pictures', 'svg', 'render'],
  kernel: ['http', 'pictures', 'svg', 'render']
};
const SERVER_ENTRY = ['main', 'serve', 'app', 'routes', 'warm-up', 'version'];
const SERVER_BASE = [
  { group: DOM_AND_LAB, message: 'The figure server runs in Node: no JupyterLab or Lumino.' },
  {
    group: ['**/chat/**', '**/widget/**', '**/kernel-bridge/**', '**/outputs/**', '**/plugins/**'],
    message: 'src/server imports only src/tools.'
  }
];

function serverLayers() {
  const entry = {
    files: ['src/server/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: SERVER_BASE }] }
  };
  const parts = Object.entries(SERVER_PARTS).map(([part, allowed]) => {
    const above = Object.keys(SERVER_PARTS).filter(p => p !== part && !allowed.includes(p));
    return {
      files: [`src/server/${part}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              ...SERVER_BASE,
              {
                group: [...above.map(p => `../${p}/*`), ...SERVER_ENTRY.map(e => `../${e}`)],
                message: `src/server/${part} may import only ${
                  allowed.length ? allowed.join(', ') : 'itself'
                } (and src/tools): the server's parts import downwards, never the entry.`
              }
            ]
          }
        ]
      }
    };
  });
  return [entry, ...parts];
}

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'lib/**',
      'dist/**',
      'jupyterlab_figure_chat/**',
      'ui-tests/test-results/**',
      'ui-tests/playwright-report/**',
      '.venv/**',
      'bench/out/**'
    ]
  },
  ...tseslint.configs.recommended,
  jupyter.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-console': ['error', { allow: ['warn', 'error'] }],
      eqeqeq: 'error',
      curly: 'error'
    }
  },
  {
    files: ['src/tools/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: DOM_AND_LAB, message: 'src/tools is pure: no JupyterLab or Lumino.' },
            {
              group: ['node:*', 'sharp', '@resvg/*', '@napi-rs/*'],
              message:
                'src/tools loads in plain Node and the browser: no Node built-ins or native modules.'
            },
            {
              group: ['**/server/**', '**/chat/**', '**/widget/**', '**/kernel-bridge/**'],
              message: 'src/tools imports only itself.'
            }
          ]
        }
      ]
    }
  },
  ...serverLayers(),
  {
    files: ['src/chat/**/*.ts', 'src/kernel-bridge/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', 'sharp', '@resvg/*', '@napi-rs/*'],
              message: 'The chat runs in the browser: it talks to the figure server over HTTP.'
            },
            { group: ['**/widget/**'], message: 'src/chat must not import widgets.' }
          ]
        }
      ]
    }
  },
  {
    files: ['src/widget/**/*.ts', 'src/outputs/**/*.ts', 'src/plugins/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', 'sharp', '@resvg/*', '@napi-rs/*'],
              message: 'Widgets must not import the figure server.'
            }
          ]
        }
      ]
    }
  },
  {
    files: ['src/__tests__/**/*.ts', 'bench/**', 'scripts/**', 'ui-tests/**'],
    rules: {
      'no-restricted-imports': 'off',
      'no-console': 'off',
      'jupyter/no-untranslated-string': 'off'
    }
  },
  {
    // The plugins' activation needs these modules at once: lazy loading would only delay start.
    files: ['src/index.ts'],
    rules: { 'jupyter/prefer-lazy-imports': 'off' }
  }
);
