// build.mjs -- the static bundle nginx serves at /: `node build.mjs OUTDIR` writes
// OUTDIR/index.html, app.js (src/main.jsx and its imports, minified, one file), app.css and
// chunk-worker.js (src/crypto/chunk_worker.js and its imports, the same way).
// Nothing is loaded from another origin at run time. Relies on esbuild (package.json).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] || path.join(here, 'dist'));
fs.mkdirSync(out, { recursive: true });

const common = {
  bundle: true,
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: false,
  legalComments: 'linked',
  logLevel: 'warning',
};
await esbuild.build({
  ...common,
  entryPoints: [path.join(here, 'src/main.jsx')],
  outfile: path.join(out, 'app.js'),
  format: 'esm',
  jsx: 'automatic',
  jsxImportSource: 'preact',
});
// The chunk worker (src/chunks.js starts it as a classic worker): sealing and opening chunks.
await esbuild.build({
  ...common,
  entryPoints: [path.join(here, 'src/crypto/chunk_worker.js')],
  outfile: path.join(out, 'chunk-worker.js'),
  format: 'iife',
});
fs.copyFileSync(path.join(here, 'index.html'), path.join(out, 'index.html'));
fs.copyFileSync(path.join(here, 'src/app.css'), path.join(out, 'app.css'));
