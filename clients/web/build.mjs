// build.mjs -- the static bundle nginx serves at /: `node build.mjs OUTDIR` writes
// OUTDIR/index.html, app.js (src/main.jsx and its imports, minified, one file) and app.css.
// Nothing is loaded from another origin at run time. Relies on esbuild (package.json).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] || path.join(here, 'dist'));
fs.mkdirSync(out, { recursive: true });

await esbuild.build({
  entryPoints: [path.join(here, 'src/main.jsx')],
  outfile: path.join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: false,
  legalComments: 'linked',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'warning',
});
fs.copyFileSync(path.join(here, 'index.html'), path.join(out, 'index.html'));
fs.copyFileSync(path.join(here, 'src/app.css'), path.join(out, 'app.css'));
