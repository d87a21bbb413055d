// Renders an SVG to a PNG with resvg, as the benchmark renders its icons:
//   npx tsx bench/render-svg.ts IN.svg OUT.png WIDTH
// bench/heldout-set.sh uses it to make emoji pairs from vector emoji.
import { readFileSync, writeFileSync } from 'node:fs';
import { svgToPng } from './measure.ts';

const [input, output, width] = process.argv.slice(2);
if (!input || !output || !Number(width)) throw new Error('usage: render-svg.ts IN.svg OUT.png WIDTH');
writeFileSync(output, svgToPng(readFileSync(input, 'utf8'), Number(width)));
