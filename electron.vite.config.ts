import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';

const root = import.meta.dirname;

export default defineConfig({
  // ESM (the package is "type": "module"); dependencies stay in node_modules.
  main: {
    plugins: [externalizeDepsPlugin()],
    build: { rolldownOptions: { input: { index: resolve(root, 'src/main/index.ts') } } },
  },
  // A sandboxed preload cannot be an ES module: CommonJS, named index.js as the main process expects.
  preload: {
    plugins: [externalizeDepsPlugin()],
    build: {
      rolldownOptions: {
        input: { index: resolve(root, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].js' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src/renderer'),
    plugins: [react()],
    build: {
      target: 'chrome120',
      minify: true,
      rolldownOptions: { input: { index: resolve(root, 'src/renderer/index.html') } },
    },
  },
});
