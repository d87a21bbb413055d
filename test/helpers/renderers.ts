// Debian's own renderers, as independent readers of the PDF and EPS the service writes:
// pdftoppm (poppler-utils) and Ghostscript. CI installs them and sets REQUIRE_RENDERERS=1, so
// that a missing one fails there instead of skipping the format tests.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { ssim, toGray, type GrayImage } from '../../bench/ssim.ts';

const run = promisify(execFile);

function missing(command: string, versionFlag: string): boolean {
  try {
    execFileSync(command, [versionFlag], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}

/** Why the renderer tests cannot run here, or false. Throws when CI requires them. */
export function renderersProblem(): string | false {
  const absent = [
    missing('pdftoppm', '-v') ? 'pdftoppm (Debian package poppler-utils)' : '',
    missing('gs', '--version') ? 'gs (Debian package ghostscript)' : '',
  ].filter(Boolean);
  if (absent.length === 0) return false;
  const problem = `not installed: ${absent.join(', ')}`;
  if (process.env.REQUIRE_RENDERERS === '1') throw new Error(`${problem} (REQUIRE_RENDERERS=1)`);
  process.stderr.write(`# skipping PDF and EPS rendering tests: ${problem}\n`);
  return problem;
}

async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'vectorize-render-'));
  try {
    return await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A PDF's first page rendered by pdftoppm at 72 dpi (a point per pixel), as PNG. */
export function renderPdf(pdf: Uint8Array): Promise<Buffer> {
  return inTempDir(async (dir) => {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    await run('pdftoppm', ['-r', '72', '-png', '-singlefile', join(dir, 'in.pdf'), join(dir, 'out')]);
    return readFileSync(join(dir, 'out.png'));
  });
}

/**
 * An EPS rendered by Ghostscript at 72 dpi, cropped to its bounding box, as PNG. Ghostscript
 * does not anti-alias the edges of shadings (gradients); `supersample` renders at that many
 * times the resolution and averages back down, to compare such files by their geometry and colour.
 */
export function renderEps(eps: Uint8Array, supersample = 1): Promise<Buffer> {
  return inTempDir(async (dir) => {
    writeFileSync(join(dir, 'in.eps'), eps);
    await run('gs', [
      '-q',
      '-dSAFER',
      '-dBATCH',
      '-dNOPAUSE',
      '-sDEVICE=png16m',
      '-dEPSCrop',
      `-r${72 * supersample}`,
      '-dGraphicsAlphaBits=4',
      `-sOutputFile=${join(dir, 'out.png')}`,
      join(dir, 'in.eps'),
    ]);
    const png = readFileSync(join(dir, 'out.png'));
    if (supersample === 1) return png;
    const { width = 0, height = 0 } = await sharp(png).metadata();
    return sharp(png).resize(Math.round(width / supersample), Math.round(height / supersample), { kernel: 'cubic' }).png().toBuffer();
  });
}

/** resvg's rendering of an SVG at its own size, on white. */
export function renderSvg(svg: string): Buffer {
  return new Resvg(svg, { background: 'white', fitTo: { mode: 'original' }, font: { loadSystemFonts: false } }).render().asPng();
}

/** A PNG's luma on white, with its size checked. */
export async function grayOf(png: Uint8Array, width: number, height: number): Promise<GrayImage> {
  const { data, info } = await sharp(png).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== width || info.height !== height) throw new Error(`rendered ${info.width}×${info.height}, expected ${width}×${height}`);
  return toGray(data, width, height, info.channels);
}

export async function ssimOf(a: Uint8Array, b: Uint8Array, width: number, height: number): Promise<number> {
  return ssim(await grayOf(a, width, height), await grayOf(b, width, height));
}
