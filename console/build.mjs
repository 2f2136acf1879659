// Builds the console (a browser app) into dist/console: one hashed script and one hashed style
// sheet beside index.html, which the service serves at /console (src/console). esbuild bundles
// and minifies in well under a second; the type check is `npm run lint`'s (console/tsconfig.json).
// Plain JavaScript, so `npm run build` and the test runner run it before anything is compiled.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, '..', 'dist', 'console');

/** Builds the bundle; answers the shipped files' names with their raw and gzipped sizes. */
export async function buildConsole() {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(join(OUT, 'assets'), { recursive: true });
  const result = await build({
    entryPoints: { app: join(HERE, 'src', 'main.tsx') },
    outdir: join(OUT, 'assets'),
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  const page = readFileSync(join(HERE, 'index.html'), 'utf8')
    .replace('{{script}}', `/console/assets/${script}`)
    .replace('{{style}}', `/console/assets/${style}`);
  writeFileSync(join(OUT, 'index.html'), page);
  return ['index.html', `assets/${script}`, `assets/${style}`].map((name) => {
    const bytes = readFileSync(join(OUT, name));
    return { name, bytes: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await buildConsole();
  const total = files.reduce((sum, file) => sum + file.gzipped, 0);
  console.log(
    `console built: ${files.map((f) => `${f.name} ${(f.gzipped / 1024).toFixed(1)} kB gz`).join(', ')}; ${(total / 1024).toFixed(1)} kB gzipped in all`,
  );
}
