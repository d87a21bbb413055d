// `npm run build` (also run by `npm ci` through `prepare`): the server compiled to dist/, which
// `npm start` runs with plain node. Written in JavaScript so that it needs no loader.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execPath } from 'node:process';
import { URL } from 'node:url';

const dist = new URL('../dist/', import.meta.url);
// From scratch, so a module deleted from src/ does not live on in dist/.
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: new URL('..', import.meta.url), stdio: 'inherit' });
// tsc emits only JavaScript: the web app's templates and static files are copied beside the
// compiled modules, so dist/ runs on its own, without src/.
for (const dir of ['views', 'public']) {
  cpSync(new URL(`../src/http/web/${dir}/`, import.meta.url), new URL(`http/web/${dir}/`, dist), { recursive: true });
}
