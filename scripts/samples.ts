// The home page's sample gallery (src/http/web/public/samples/): copies the sample pictures
// from the benchmark corpus (shrunk below 60 KB where needed) and pre-renders their "after" SVG
// once with the engine, at the parameters of each sample's picture choice on /try. The output
// is committed; run again (`npx tsx scripts/samples.ts`) after an engine change.
// Usage: npx tsx scripts/samples.ts [corpus dir]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { convertImage } from '../src/engine/convert.ts';
import { parseParams } from '../src/engine/params.ts';
import { PICTURES, SAMPLES } from '../src/http/web/routes/try.ts';

const CORPUS = process.argv[2] ?? process.env.CORPUS_DIR ?? '/work/shared/corpus';
const OUT = fileURLToPath(new URL('../src/http/web/public/samples/', import.meta.url));
const MAX_BYTES = 60 * 1024;

/** Where each sample comes from in the corpus; licences in public/samples/SOURCES.md. */
const FROM: Record<keyof typeof SAMPLES, string> = {
  shapes: 'logo/flat_shapes_transparency_300.png',
  elephant: 'clipart/kenney_animal_elephant.png',
  rose: 'edge/webp_alpha_yellow_rose.webp',
  handwriting: 'document/skimage_text_handwriting_gray.png',
};

mkdirSync(OUT, { recursive: true });
for (const [name, sample] of Object.entries(SAMPLES) as [keyof typeof SAMPLES, (typeof SAMPLES)[keyof typeof SAMPLES]][]) {
  let bytes = readFileSync(join(CORPUS, FROM[name]));
  for (let width = 512; bytes.length > MAX_BYTES && width >= 128; width = Math.round(width * 0.8)) {
    const resized = sharp(bytes).resize({ width, withoutEnlargement: true });
    bytes = await (sample.type === 'image/webp' ? resized.webp({ quality: 80 }) : resized.png({ palette: true })).toBuffer();
  }
  writeFileSync(join(OUT, sample.file), bytes);
  const params = parseParams(JSON.stringify(PICTURES[sample.picture].params));
  const result = await convertImage({ image: bytes, params }, { maxInputPixels: 50_000_000 });
  const svgName = sample.file.replace(/\.[^.]+$/, '.svg');
  writeFileSync(join(OUT, svgName), result.svg);
  process.stdout.write(`${name}: ${sample.file} ${bytes.length} B → ${svgName} ${Buffer.byteLength(result.svg)} B, ${result.nodeCount} nodes\n`);
}
