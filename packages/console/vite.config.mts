import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The operator console: built into this package's dist/, which the ingress serves at /console with
// a strict CSP (no inline script or style, so nothing here may inject one).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  publicDir: false,
  // The API's plain enumerations (no schema, no TypeBox): the one value the console takes from @hookyard/api.
  resolve: { alias: { '@hookyard/api/values': fileURLToPath(new URL('../api/src/values.ts', import.meta.url)) } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('dist', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
    target: 'es2022',
  },
});
