// `mode: auto` on images changed the way images are changed in the wild: each labelled image of
// the corpus and of wide/ saved as JPEG, halved, flattened on white, darkened, made grey, enlarged
// 3× by repeating pixels, saved as WebP, where the change keeps its label (a photo darkened is
// still a photo; pixel art saved as JPEG is no longer pixel art). Counts the changed images whose
// kind, or the kind the classifier is in doubt about (which the self-check also traces), is the
// label. Classification only: no tracing, so it runs in a minute or two.
//
//   npm run bench:kinds                    writes its section of docs/benchmarks.md
//   npm run bench:kinds -- --reveal-holdout  also names hold-out misses on the console (never in docs)
//   npm run bench:kinds -- --more          the harder changes of bench:robust --more (MORE_CHANGES), where
//                                          they keep the label; a section of its own
//   npm run bench:kinds -- --tuning        the corpus and the tune part only, on the console: for
//                                          trying a rule without measuring the hold-out part

import sharp from 'sharp';
import { classifyImage, doubtfulAlternative, type ImageKind } from '../src/engine/analyse/classify.ts';
import { firstDecode, statisticsOf } from '../src/engine/convert.ts';
import { CHANGES, labelledImages, MAX_CHANGED_PIXELS as MAX_PIXELS, MORE_CHANGES, type LabelledPart } from './changes.ts';
import { writeReportSection } from './report.ts';

/**
 * The kind auto picks, and the one it is in doubt about, as convertImage decides them; `margin`
 * when the doubt's trace must win by a margin to be kept.
 */
async function kindsOf(bytes: Buffer): Promise<{ kinds: ImageKind[]; margin: boolean }> {
  const decoded = (await firstDecode(bytes, MAX_PIXELS * 9)).first;
  const stats = await statisticsOf(decoded);
  const kind = classifyImage(stats, decoded);
  const doubt = doubtfulAlternative(kind, stats, decoded);
  return { kinds: doubt ? [kind, doubt.kind] : [kind], margin: (doubt?.margin ?? 0) > 0 };
}

async function main(): Promise<void> {
  const reveal = process.argv.includes('--reveal-holdout');
  const more = process.argv.includes('--more');
  const tuning = process.argv.includes('--tuning');
  const changes = more ? MORE_CHANGES : CHANGES;
  const parts: LabelledPart[] = tuning ? ['corpus', 'tune'] : ['corpus', 'tune', 'holdout'];
  const counts = new Map<string, { right: number; total: number }>();
  const count = (part: LabelledPart, change: string, right: boolean) => {
    for (const key of [`${part}:${change}`, `${part}:all`]) {
      const entry = counts.get(key) ?? { right: 0, total: 0 };
      entry.total++;
      if (right) entry.right++;
      counts.set(key, entry);
    }
  };
  const byMarginCounts = new Map<LabelledPart, number>();
  const misses: string[] = [];
  for (const image of labelledImages()) {
    if (!parts.includes(image.part)) continue;
    const { width = 0, height = 0 } = await sharp(image.path).metadata();
    if (width * height > MAX_PIXELS) continue;
    for (const change of changes) {
      if (!change.keeps(image.kind)) continue;
      const pipeline = change.apply(sharp(image.path), width, height);
      if (!pipeline) continue;
      const { kinds, margin } = await kindsOf(await pipeline.toBuffer());
      const labelled = (kind: ImageKind | undefined) => kind === image.kind || (image.also !== undefined && kind === image.also);
      const right = kinds.some(labelled);
      count(image.part, change.name, right);
      // Right only through a doubt whose trace must win by a margin: the self-check, not the classifier, decides.
      if (right && margin && !labelled(kinds[0])) byMarginCounts.set(image.part, (byMarginCounts.get(image.part) ?? 0) + 1);
      if (right) continue;
      const line = `${change.name.padEnd(10)} ${image.file} (${image.part}): ${image.kind}${image.also ? `/${image.also}` : ''} → ${kinds.join(', in doubt ')}`;
      if (image.part !== 'holdout') misses.push(line);
      if (image.part !== 'holdout' || reveal) console.log(line);
    }
  }
  const cell = (part: LabelledPart, change: string) => {
    const entry = counts.get(`${part}:${change}`);
    return entry ? `${entry.right} of ${entry.total}` : '–';
  };
  const rows = [...changes.map((change) => [`${change.name}: ${change.what}`, change.name]), ['**all changes**', 'all']].map(
    ([label, name]) => `| ${label} | ${parts.map((part) => cell(part, name as string)).join(' | ')} |`,
  );
  const byMargin = (part: LabelledPart) => byMarginCounts.get(part) ?? 0;
  for (const part of parts) console.log(`${part}: ${cell(part, 'all')} changed images as labelled (${byMargin(part)} of them only through a doubt with a margin)`);
  if (tuning) return;
  const intro = more
    ? [
        '## `auto` on harder changes (npm run bench:kinds -- --more)',
        '',
        'The harder changes of bench:robust --more (bench/changes.ts, MORE_CHANGES) on the labelled images of 2 MP or less,',
        'where the change keeps the label (pixel art blurred, quartered, enlarged smoothly or saved as JPEG is no longer pixel',
        'art). Counted as bench:kinds counts. The hold-out part is reported in aggregate.',
      ]
    : [
        '## `auto` on changed images (npm run bench:kinds)',
        '',
        'Each labelled image of the corpus and of wide/, changed as images are changed in the wild, where the change keeps',
        'its label (a photo darkened is still a photo; pixel art saved as JPEG is no longer pixel art). Counted as labelled',
        'when the kind `auto` picks, or the kind it is in doubt about and also traces, is the label (or `also`). Classification',
        `only; images over ${MAX_PIXELS / 1e6} MP are left out. The hold-out part is reported in aggregate.`,
      ];
  writeReportSection(
    more ? 'kindsmore' : 'kinds',
    [
      ...intro,
      '',
      `| change | corpus | wide/ tune | wide/ hold-out |`,
      '|---|---|---|---|',
      ...rows,
      '',
      `Of these, counted as labelled only through the doubt about colour photographs by the last rule, whose logo trace is kept only when it scores 0.03 higher (docs/parameters.md): corpus ${byMargin('corpus')}, tune part ${byMargin('tune')}, hold-out part ${byMargin('holdout')}. Whether the labelled trace is kept there is for the self-check: the engine bench and bench:robust show it.`,
      '',
      misses.length ? `Misses on the corpus and the tune part:\n\n${misses.map((line) => `- \`${line}\``).join('\n')}` : 'No miss on the corpus or the tune part.',
    ].join('\n'),
  );
}

await main();
