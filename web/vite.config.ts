import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into web/dist by `npm run build` (always NODE_ENV=production: Vitest's "test" would ship
// React's development build); the API process serves it (src/http/dashboard.ts).
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline scripts or styles: the Content-Security-Policy forbids them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: { proxy: { '/api': 'http://localhost:3000' } },
});
