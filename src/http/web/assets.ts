// The pages' static assets: the stylesheet as written, and the browser scripts built from
// TypeScript (src/http/web/client/) by esbuild at start, into a folder of the temp dir. Both are
// served by @fastify/static under /static/, with a version in the URL so they can be cached
// for a year and still change with a new release. Run compiled (dist/), the same folders sit
// beside this module: `npm run build` compiles the scripts to JavaScript, which esbuild bundles
// alike, and copies public/ and views/ there, so dist/ needs nothing from src/.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, stop } from 'esbuild';

export const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));
const CLIENT_DIR = fileURLToPath(new URL('./client/', import.meta.url));
const EXTENSION = import.meta.url.endsWith('.js') ? 'js' : 'ts';
const ENTRY_POINTS = [`try.${EXTENSION}`, `keys.${EXTENSION}`, `home.${EXTENSION}`];

export interface WebAssets {
  /** Folders @fastify/static serves under /static/. */
  roots: string[];
  /** Appended to asset URLs (`?v=…`): changes whenever an asset does. */
  version: string;
}

let built: Promise<WebAssets> | undefined;

/** Builds once per process; every app built in it (tests start several) shares the output. */
export function buildWebAssets(): Promise<WebAssets> {
  built ??= (async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'vectorize-web-'));
    await build({
      entryPoints: ENTRY_POINTS.map((name) => join(CLIENT_DIR, name)),
      outdir,
      bundle: true,
      format: 'esm',
      target: ['es2022'],
      minify: true,
      sourcemap: false,
      logLevel: 'silent',
    });
    // Built once: esbuild's service process would otherwise idle beside the server (~13 MB).
    await stop();
    const hash = createHash('sha256');
    for (const dir of [PUBLIC_DIR, outdir]) {
      // public/ has a folder (samples/): files at every depth.
      const names = (readdirSync(dir, { recursive: true }) as string[]).filter((name) => statSync(join(dir, name)).isFile()).sort();
      for (const name of names) hash.update(name).update(readFileSync(join(dir, name)));
    }
    return { roots: [PUBLIC_DIR, outdir], version: hash.digest('hex').slice(0, 12) };
  })();
  return built;
}
