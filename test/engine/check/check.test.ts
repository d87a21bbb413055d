// The self-check (src/engine/check/): a faithful result scores high and carries no signature; a
// result with a region removed, or traced as the wrong kind, is caught, traced again and replaced.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { checkSvg, COLOUR_LOST_ABOVE, signaturesOf, TONES_LOST_ABOVE, type CheckReference } from '../../../src/engine/check/check.ts';
import { compareImages } from '../../../src/engine/check/compare.ts';
import { renderSvg } from '../../../src/engine/check/render.ts';
import { CHECK_PIXELS, convertImage } from '../../../src/engine/convert.ts';
import { fitToPixels } from '../../../src/engine/analyse/prepare.ts';
import { DETAIL_GAP, finerPlan, INKS_MARGIN_ON_DIGITAL_PAGE, inksPlan, otherKindPlan, PALETTE_BELOW, palettePlan, PLAIN_BELOW, plainPlan, retraceFitsInTime, TONE_MARGIN, tonePlan } from '../../../src/engine/check/retrace.ts';
import type { DecodedImage } from '../../../src/engine/analyse/decode.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { corpusImage as corpusFile } from '../corpus.ts';
import { handwrittenLetter, randomSequence, renderSvg as renderFixture } from '../fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };
const FOX = 'clipart/noto_emoji_u1f98a_fox_512.png';

/** The image as the engine's check compares it: at most CHECK_PIXELS (the 512 px fox is reduced, and a blurred shape scores differently at another size). */
async function referenceOf(image: Buffer): Promise<CheckReference> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const fitted = await fitToPixels({ rgba: data, width: info.width, height: info.height }, CHECK_PIXELS);
  return { rgba: fitted.rgba, width: fitted.width, height: fitted.height };
}

const FACTS = { kind: 'logo', curveMode: 'spline', tracedScale: 1, pixelGrid: false } as const;

/** The SVG without its `index`-th path element (counting from 0). */
function withoutPath(svg: string, index: number): string {
  let seen = -1;
  return svg.replace(/<path\b[^>]*\/>/g, (element) => (++seen === index ? '' : element));
}

test('a faithful trace scores high and shows no signature', async () => {
  const image = corpusFile(FOX);
  const result = await convertImage({ image, params: DEFAULT_PARAMS }, { ...LIMITS, noRetrace: true });
  const report = checkSvg(result.svg, await referenceOf(image), FACTS);
  assert.ok(report.fidelity > 0.85, `fidelity ${report.fidelity}`);
  assert.deepEqual(report.signatures, []);
  assert.equal(report.fidelity, result.fidelity, 'the engine reports the score of the result it returns');
});

test('a trace with a region removed is caught: fidelity falls and the region or coverage signature fires', async () => {
  const image = corpusFile(FOX);
  const reference = await referenceOf(image);
  const { svg } = await convertImage({ image, params: DEFAULT_PARAMS }, { ...LIMITS, noRetrace: true });
  const whole = checkSvg(svg, reference, FACTS);
  // Each path removed in turn; the one whose loss the check scores worst is the fox's largest part.
  const paths = svg.match(/<path\b/g)?.length ?? 0;
  assert.ok(paths > 3);
  let worst = whole;
  for (let index = 0; index < paths; index++) {
    const report = checkSvg(withoutPath(svg, index), reference, FACTS);
    if (report.fidelity < worst.fidelity) worst = report;
  }
  assert.ok(worst.fidelity < whole.fidelity - 0.1, `${worst.fidelity} against ${whole.fidelity}`);
  assert.ok(worst.signatures.includes('region') || worst.signatures.includes('coverage'), `signatures ${worst.signatures.join(', ')}`);
});

test('an empty result for opaque artwork is coverage lost and faint', async () => {
  const image = corpusFile('logo/flag_br_noto.png');
  const reference = await referenceOf(image);
  const empty = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${reference.width} ${reference.height}"></svg>`;
  const report = checkSvg(empty, reference, FACTS);
  assert.ok(report.comparison.coverageLost > 0.95, `lost ${report.comparison.coverageLost}`);
  assert.ok(report.signatures.includes('coverage') && report.signatures.includes('faint'), report.signatures.join(', '));
});

test('light artwork on transparency is compared on a dark ground too: gone, it is caught', async () => {
  // A near-white disc on transparency: on white it would look the same as nothing.
  const size = 96;
  const disc = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><circle cx="48" cy="48" r="36" fill="#f3f4f6"/></svg>`;
  const reference = { rgba: renderSvg(disc, size, size), width: size, height: size };
  const nothing = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}"></svg>`;
  const comparison = compareImages(reference.rgba, renderSvg(nothing, size, size), size, size);
  assert.ok(comparison.deltaE > 0.3, `mean Oklab ΔE ${comparison.deltaE}`);
  assert.ok(checkSvg(nothing, reference, FACTS).signatures.includes('coverage'));
  assert.deepEqual(checkSvg(disc, reference, FACTS).signatures, []);
});

test('traced as the wrong kind, the image is traced again and the better result kept', async () => {
  // The fox emoji forced through the ink path (as a misclassification would send it).
  const result = await convertImage({ image: corpusFile(FOX), params: DEFAULT_PARAMS }, { ...LIMITS, kind: 'sketch', untimed: true });
  const [first, ...others] = result.check.attempts;
  assert.equal(first?.kind, 'sketch');
  assert.ok(result.check.signatures.length > 0, 'the ink trace of a colour emoji is caught');
  assert.ok(result.check.retraced);
  assert.ok(others.length > 0);
  assert.equal(result.chosen.mode, 'logo');
  assert.ok(result.fidelity > (first?.fidelity ?? 1) + 0.1, `${result.fidelity} against ${first?.fidelity}`);
  assert.ok(result.check.retraceMs > 0);
});

test('a kind chosen by the caller is kept: the check traces again only with the caller’s kind', async () => {
  const result = await convertImage({ image: corpusFile(FOX), params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  assert.equal(result.chosen.mode, 'sketch');
  assert.ok(result.check.attempts.every((attempt) => attempt.kind === 'sketch'));
});

test('signatures: squares for pixel-exact outlines on a coarse grid, blobs for pixel art traced smooth', () => {
  const { comparison } = checkSvg(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><path d="M0 0h8v8h-8z" fill="#000"/></svg>',
    { rgba: Buffer.from(new Uint8Array(8 * 8 * 4).map((_, i) => (i % 4 === 3 ? 255 : 0))), width: 8, height: 8 },
    FACTS,
  );
  assert.deepEqual(signaturesOf(comparison, 1, FACTS), []);
  assert.deepEqual(signaturesOf(comparison, 1, { ...FACTS, curveMode: 'none', tracedScale: 0.5 }), ['squares']);
  assert.deepEqual(signaturesOf(comparison, 1, { ...FACTS, curveMode: 'none', tracedScale: 0.5, kind: 'pixelart' }), []);
  assert.deepEqual(signaturesOf(comparison, 1, { ...FACTS, pixelGrid: true }), ['blobs']);
  assert.deepEqual(signaturesOf({ ...comparison, colourLost: COLOUR_LOST_ABOVE }, 1, { ...FACTS, kind: 'sketch' }), ['colour']);
  assert.deepEqual(signaturesOf({ ...comparison, colourLost: COLOUR_LOST_ABOVE }, 1, FACTS), [], 'only ink paints colour grey');
});

test('fidelity is a number 0–1 with three decimals, the same for the same image and params', async () => {
  const image = corpusFile('logo/visioncortex_icon_400.png');
  const first = await convertImage({ image, params: DEFAULT_PARAMS }, LIMITS);
  const second = await convertImage({ image, params: DEFAULT_PARAMS }, LIMITS);
  assert.ok(first.fidelity >= 0 && first.fidelity <= 1);
  assert.equal(Math.round(first.fidelity * 1000) / 1000, first.fidelity);
  assert.equal(first.fidelity, second.fidelity);
  assert.equal(first.svg, second.svg);
});

/**
 * A printed bar chart: half-strength fills in six colours with saturated outlines, on white with
 * grey rules, and the paper's grain. Ink keeps the outlines' colours (paint/ink-colours.ts); the
 * fills lie between ink and paper, and a scan's paper has no exact colour to find them as a
 * digital page's fills (analyse/paper-tones.ts).
 */
async function barChart(): Promise<Buffer> {
  const colours = ['#ff6384', '#ff9f40', '#ffcd56', '#4bc0c0', '#36a2eb', '#9966ff'];
  let body = '<rect width="480" height="240" fill="#fff"/>';
  for (let i = 0; i <= 5; i++) body += `<line x1="30" x2="470" y1="${20 + i * 40}" y2="${20 + i * 40}" stroke="#ddd"/>`;
  colours.forEach((colour, i) => {
    const height = 40 + ((i * 53) % 150);
    body += `<rect x="${40 + i * 72}" y="${220 - height}" width="40" height="${height}" fill="${colour}" fill-opacity="0.5" stroke="${colour}" stroke-width="2"/>`;
  });
  const { rgba, width, height } = await renderFixture(`<svg xmlns="http://www.w3.org/2000/svg" width="480" height="240">${body}</svg>`);
  const grain = randomSequence(5);
  for (let i = 0; i < rgba.length; i += 4) {
    const level = Math.round((grain() - 0.5) * 8) - 4;
    for (let c = 0; c < 3; c++) rgba[i + c] = Math.max(0, Math.min(255, (rgba[i + c] as number) + level));
  }
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

test('ink painted over clear colour is colour lost: a chart taken for ink is traced again as colour artwork', async () => {
  const chart = await barChart();
  const result = await convertImage({ image: chart, params: DEFAULT_PARAMS }, { ...LIMITS, kind: 'sketch', untimed: true });
  // Its fills, flat, may also count as tones lost; colour is what this test is about.
  assert.ok(result.check.signatures.includes('colour'), result.check.signatures.join(', '));
  const [first, other] = result.check.attempts;
  assert.equal(other?.reason, 'colour');
  assert.equal(other?.kind, 'logo');
  assert.ok((other?.fidelity ?? 0) > (first?.fidelity ?? 1), `${other?.fidelity} against ${first?.fidelity}`);
  assert.equal(result.chosen.mode, 'logo');
  // The bars' outlines and fills keep their colour: some fill near the blue and the red outlines.
  const fills = [...result.svg.matchAll(/fill="#([0-9a-f]{6})"/gi)].map((match) => parseInt(match[1] as string, 16));
  const near = (hex: number) => fills.some((fill) => [16, 8, 0].every((shift) => Math.abs(((fill >> shift) & 255) - ((hex >> shift) & 255)) <= 24));
  assert.ok(near(0x36a2eb) && near(0xff6384), 'the outlines’ blue and red');
});

test('ink in a colour of its own on yellowed paper is not colour lost', async () => {
  // Blue ink on yellowed paper under uneven light: the ink is painted in its colour, the paper in its tint.
  const letter = await handwrittenLetter({ width: 640, height: 480, paper: [236, 222, 180], ink: [30, 40, 120], darkestLight: 0.7, seed: 4 });
  const result = await convertImage({ image: letter, params: DEFAULT_PARAMS }, LIMITS);
  assert.equal(result.chosen.mode, 'sketch');
  assert.ok(!result.check.signatures.includes('colour'), result.check.signatures.join(', '));
  assert.equal(result.check.attempts.length, 1);
});

test('ink painted over flat greys is tones lost: grey artwork taken for ink is traced again as artwork; a letter on unevenly lit paper is not', async () => {
  const comparison = compareImages(new Uint8Array(64 * 64 * 4).fill(255), new Uint8Array(64 * 64 * 4).fill(255), 64, 64);
  assert.deepEqual(signaturesOf({ ...comparison, toneLost: TONES_LOST_ABOVE }, 1, { ...FACTS, kind: 'sketch' }), ['tones']);
  assert.deepEqual(signaturesOf({ ...comparison, toneLost: TONES_LOST_ABOVE }, 1, FACTS), [], 'only ink paints tones over');
  // A grey cartoon elephant on black reads as ink on paper: its body, ears and tusks become one paper.
  const elephant = await sharp(corpusFile('clipart/kenney_animal_elephant.png')).flatten({ background: '#000000' }).png().toBuffer();
  const result = await convertImage({ image: elephant, params: DEFAULT_PARAMS }, { ...LIMITS, untimed: true });
  const [first, other] = result.check.attempts;
  assert.ok(first && first.kind === 'sketch', `first trace ${first?.kind}`);
  assert.ok(result.check.signatures.includes('tones'), result.check.signatures.join(', '));
  // Its ink trace, its hatching split, also shows a region far worse than the rest; either
  // signature's first plan is the trace as artwork.
  assert.equal(other?.kind, 'logo');
  assert.ok(other?.reason === 'tones' || other?.reason === 'region', `traced again for ${other?.reason}`);
  assert.equal(result.chosen.mode, 'logo', 'the trace as artwork is kept');
  assert.ok(result.fidelity > first.fidelity + 0.1, `${result.fidelity} against ${first.fidelity}`);
  // Asked for as ink, it stays ink.
  const asked = await convertImage({ image: elephant, params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  assert.ok(asked.check.attempts.every((a) => a.kind === 'sketch'));
  // A grey letter under uneven light: its paper is drawn as one paper, and that is no tone lost.
  const letter = await handwrittenLetter({ width: 640, height: 480, paper: [228, 228, 228], ink: [40, 40, 40], darkestLight: 0.7, seed: 7 });
  const ink = await convertImage({ image: letter, params: DEFAULT_PARAMS }, LIMITS);
  assert.equal(ink.chosen.mode, 'sketch');
  assert.ok(!ink.check.signatures.includes('tones'), ink.check.signatures.join(', '));
});

test('a low score is held against the plain tracer, only where the caller left kind and curves to the engine', () => {
  const first = { kind: 'logo' } as const;
  assert.equal(plainPlan(first, PLAIN_BELOW, DEFAULT_PARAMS), undefined, 'a result scoring well is not');
  assert.deepEqual(plainPlan(first, PLAIN_BELOW - 0.01, DEFAULT_PARAMS), { kind: 'logo', reason: 'plain', costFactor: 1 });
  assert.equal(plainPlan(first, 0.1, { ...DEFAULT_PARAMS, mode: 'photo' }), undefined);
  assert.equal(plainPlan(first, 0.1, { ...DEFAULT_PARAMS, curveMode: 'polygon' }), undefined);
});

test('a retrace, the classifier’s doubt included, starts only early and when expected to end by 9 s', () => {
  const doubt = { kind: 'logo', reason: 'doubt' } as const;
  assert.ok(retraceFitsInTime(doubt, 1_000, 1_000), 'a quick first trace leaves room for a second');
  assert.ok(!retraceFitsInTime(doubt, 5_500, 500), 'none starts after 5 s');
  // The halved map as a photo, then as a logo on its grown grid: 8 s. A first trace of 4.6 s would take it past 9 s.
  assert.ok(retraceFitsInTime(doubt, 3_000, 3_000));
  assert.ok(!retraceFitsInTime(doubt, 4_600, 4_600), 'a slow first trace is not followed by a second as slow');
  assert.ok(!retraceFitsInTime({ ...doubt, costFactor: 3 }, 2_000, 2_500), 'a plan costing three first traces');
});

test('a result that lost much of the picture is replaced by the plain trace when that scores higher', async () => {
  // A colour photograph forced through the ink path (as a misclassification would send it), with
  // the signatures' other kinds left out: only the fail-safe can rescue it.
  const image = corpusFile('photo/kodim23.png');
  const result = await convertImage({ image, params: DEFAULT_PARAMS }, { ...LIMITS, kind: 'sketch', onlyPlainRetrace: true, untimed: true });
  const [first, plain] = result.check.attempts;
  assert.ok(first && first.fidelity < PLAIN_BELOW, `the ink trace of a colour photograph scores ${first?.fidelity}`);
  assert.equal(plain?.reason, 'plain');
  assert.equal(result.fidelity, plain?.fidelity, 'the plain trace is kept');
  assert.ok(result.fidelity > first.fidelity + 0.1, `${result.fidelity} against ${first.fidelity}`);
  // It is a real trace of the picture: many colours, and the SVG returned scores as reported
  // (here against the full-size photograph; the engine compares at 0.25 MP).
  assert.ok(new Set(result.svg.match(/fill="#[0-9a-f]{6}"/g)).size > 20);
  assert.ok(Math.abs(checkSvg(result.svg, await referenceOf(image), FACTS).fidelity - result.fidelity) < 0.01);
});

test('a low score traced below the image’s own size is traced again finer, in its own kind, before the plain trace', async () => {
  const photo = { kind: 'photo' } as const;
  // A 1.5 MP photograph is traced at 0.4 MP; three times that is tried, and never more than its own size.
  assert.deepEqual(finerPlan(photo, PLAIN_BELOW - 0.01, 1_500_000), { kind: 'photo', workingPixels: 1_200_000, reason: 'low-score', costFactor: 3 });
  assert.equal(finerPlan(photo, PLAIN_BELOW - 0.01, 1_000_000)?.workingPixels, 1_000_000);
  assert.equal(finerPlan(photo, PLAIN_BELOW, 1_500_000), undefined, 'a result scoring well is not');
  assert.equal(finerPlan(photo, 0.1, 300_000), undefined, 'a photograph traced at its own size is not');
  assert.equal(finerPlan({ kind: 'sketch' }, 0.1, 4_000_000), undefined, 'ink is traced at its own size already');
  // The etching, darkened and saved as JPEG as a dim photograph of the page would be: taken for a
  // photograph and traced at 0.4 MP, it loses its hatching; the finer trace keeps more of it.
  const dark = await sharp(corpusFile('sketch/piranesi_carceri_etching_1000.png')).flatten({ background: '#ffffff' }).linear(0.6, -30).jpeg({ quality: 85 }).toBuffer();
  // Untimed: on a busy machine the first trace's time may leave no room for the finer one.
  const result = await convertImage({ image: dark, params: DEFAULT_PARAMS }, { ...LIMITS, untimed: true });
  const [first, finer] = result.check.attempts;
  assert.ok(first && first.fidelity < PLAIN_BELOW, `first trace ${first?.fidelity}`);
  assert.equal(finer?.reason, 'low-score');
  assert.equal(finer?.kind, first.kind);
  assert.equal(result.fidelity, Math.max(...result.check.attempts.map((a) => a.fidelity)), 'the best attempt is kept');
  assert.ok(finer.fidelity > first.fidelity + 0.05, `finer ${finer.fidelity} against ${first.fidelity}`);
});

test('ink in several inks is traced again as artwork, only under mode auto', () => {
  const ink = { kind: 'sketch' } as const;
  assert.deepEqual(inksPlan(ink, true, DEFAULT_PARAMS), { kind: 'logo', reason: 'inks', costFactor: 1.5 });
  assert.equal(inksPlan(ink, false, DEFAULT_PARAMS), undefined, 'ink in one colour is not');
  assert.equal(inksPlan(ink, true, { ...DEFAULT_PARAMS, mode: 'sketch' }), undefined, 'a caller who asked for ink gets ink');
  assert.equal(inksPlan({ kind: 'logo' }, true, DEFAULT_PARAMS), undefined);
  assert.ok(INKS_MARGIN_ON_DIGITAL_PAGE >= 0.02, "artwork must win clearly on a digital page");
});

test('ink scoring low is traced again in tones before the plain trace, only under mode auto', async () => {
  const ink = { kind: 'sketch' } as const;
  assert.deepEqual(tonePlan(ink, PLAIN_BELOW - 0.01, DEFAULT_PARAMS), { kind: 'photo', reason: 'low-score', costFactor: 1 });
  assert.equal(tonePlan(ink, PLAIN_BELOW, DEFAULT_PARAMS), undefined, 'ink scoring well is not');
  assert.equal(tonePlan({ kind: 'logo' }, 0.1, DEFAULT_PARAMS), undefined, 'other kinds draw tones already');
  assert.equal(tonePlan(ink, 0.1, { ...DEFAULT_PARAMS, mode: 'sketch' }), undefined, 'a caller who asked for ink gets ink');
  // The corpus etching made smaller and blurred, as a soft scan would be: its hatching is now
  // tones, and ink draws them as blotches of two tones.
  const blurred = await sharp(corpusFile('sketch/piranesi_carceri_etching_1000.png')).resize(600).blur(1.2).png().toBuffer();
  const result = await convertImage({ image: blurred, params: DEFAULT_PARAMS }, { ...LIMITS, untimed: true });
  const [first] = result.check.attempts;
  assert.ok(first && first.kind === 'sketch' && first.fidelity < PLAIN_BELOW, `first trace ${first?.kind} ${first?.fidelity}`);
  const tones = result.check.attempts.find((a) => a.reason === 'low-score');
  assert.equal(tones?.kind, 'photo');
  assert.ok(tones.fidelity > first.fidelity + 0.2, `${tones.fidelity} against ${first.fidelity}`);
  assert.equal(result.chosen.mode, 'photo', 'the trace in tones is kept');
  // Its tones are drawn: ink has one or two.
  assert.ok(new Set(result.svg.match(/fill="#[0-9a-f]{6}"/g)).size > 8, 'grey levels in the SVG');
  // Its first trace scored that low: it is held against the plain trace too, although the trace in
  // tones scores well; the plain trace must win by PLAIN_MARGIN.
  const plain = result.check.attempts.find((a) => a.reason === 'plain');
  assert.ok(plain, result.check.attempts.map((a) => a.reason).join(', '));
  assert.ok(plain.fidelity < tones.fidelity + 0.01, `plain ${plain.fidelity} against ${tones.fidelity}`);
  assert.equal(result.fidelity, tones.fidelity);
  // Asked for as ink, it stays ink.
  const asked = await convertImage({ image: blurred, params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  assert.equal(asked.chosen.mode, 'sketch');
  assert.ok(asked.check.attempts.every((a) => a.kind === 'sketch'), asked.check.attempts.map((a) => a.kind).join(', '));
});

test('a photograph or artwork scoring low is traced as the other kind too, only under mode auto', () => {
  assert.deepEqual(otherKindPlan({ kind: 'photo' }, PLAIN_BELOW - 0.01, DEFAULT_PARAMS), { kind: 'logo', reason: 'low-score', costFactor: 2 });
  assert.deepEqual(otherKindPlan({ kind: 'logo' }, PLAIN_BELOW - 0.01, DEFAULT_PARAMS), { kind: 'photo', reason: 'low-score', costFactor: 1 });
  assert.equal(otherKindPlan({ kind: 'photo' }, PLAIN_BELOW, DEFAULT_PARAMS), undefined, 'a photograph scoring well is not');
  assert.equal(otherKindPlan({ kind: 'sketch' }, 0.1, DEFAULT_PARAMS), undefined, 'ink has its own plan (tonePlan)');
  assert.equal(otherKindPlan({ kind: 'pixelart' }, 0.1, DEFAULT_PARAMS), undefined, 'pixel art is kept on its evidence');
  assert.equal(otherKindPlan({ kind: 'photo' }, 0.1, { ...DEFAULT_PARAMS, mode: 'photo' }), undefined, 'a caller who asked for a photograph gets one');
});

test('a low score alone does not give ink up for tones: they must win by TONE_MARGIN', async () => {
  // A 1-bit comic panel reduced to 2/5, with a scanner's grain (±3 levels): its hatching, under a
  // pixel wide, counts in the check by its mean tone, which a trace in tones draws as a mosaic of
  // greys and scores higher than the ink (0.725 against 0.691), by less than the margin. Without
  // the grain its white is exact, a digital page, whose ink keeps its finest strokes (0.74).
  const file = corpusFile('wide/ink/maxmoritz1865_comic_panel_1bit.png');
  const { width = 0 } = await sharp(file).metadata();
  const { data, info } = await sharp(file).resize(Math.round(width / 2.5)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const random = randomSequence(7);
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, (data[i] as number) + Math.round((random() - 0.5) * 6)));
  const reduced = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
  const result = await convertImage({ image: reduced, params: DEFAULT_PARAMS }, { ...LIMITS, untimed: true });
  const [first] = result.check.attempts;
  assert.ok(first && first.kind === 'sketch' && first.fidelity < PLAIN_BELOW, `first trace ${first?.kind} ${first?.fidelity}`);
  const tones = result.check.attempts.find((a) => a.reason === 'low-score');
  assert.equal(tones?.kind, 'photo', 'traced in tones');
  assert.ok(tones.fidelity > first.fidelity && tones.fidelity < first.fidelity + TONE_MARGIN, `tones ${tones.fidelity} against ${first.fidelity}: not a case for the margin`);
  assert.equal(result.chosen.mode, 'sketch', 'the ink is kept');
  assert.equal(result.fidelity, first.fidelity);
});

test('artwork whose regions score low is traced from its palette, kept only when clearly better', async () => {
  const regions = { kind: 'logo' } as const;
  const map = { originalWidth: 425, originalHeight: 155 } as DecodedImage;
  assert.deepEqual(palettePlan(regions, PALETTE_BELOW - 0.01, true, map), { kind: 'logo', path: 'palette', reason: 'palette', costFactor: 1.5 });
  assert.equal(palettePlan(regions, PALETTE_BELOW, true, map), undefined, 'regions scoring well stand');
  assert.equal(palettePlan(regions, 0.5, false, map), undefined, 'traced from its palette already');
  assert.equal(palettePlan({ kind: 'photo' }, 0.5, false, map), undefined, 'other kinds have no regions');
  assert.equal(palettePlan(regions, 0.5, true, { originalWidth: 128, originalHeight: 128 } as DecodedImage), undefined, 'icons are shown larger than their pixels');
  // A street map halved: its regions smudge the street names, which the palette keeps.
  const halved = await sharp(corpusFile('wide/edge/map_osm_carto_preview.png')).resize(425, 155, { kernel: 'lanczos3' }).png().toBuffer();
  const result = await convertImage({ image: halved, params: DEFAULT_PARAMS }, { ...LIMITS, untimed: true });
  const [first] = result.check.attempts;
  assert.ok(first && first.kind === 'logo' && first.fidelity < PALETTE_BELOW, `first trace ${first?.kind} ${first?.fidelity}`);
  const palette = result.check.attempts.find((a) => a.reason === 'palette');
  assert.ok(palette, result.check.attempts.map((a) => a.reason).join(', '));
  assert.equal(palette.kind, 'logo', 'the kind is kept');
  assert.equal(result.fidelity, palette.fidelity, 'the palette trace is kept');
  assert.ok(result.fidelity > first.fidelity + 0.1, `${result.fidelity} against ${first.fidelity}`);
});

/**
 * A chart of boxes on a soft gradient, their frames and connecting lines a pixel wide (a family
 * tree printed on a poster): 2400 × 1800, so its regions are segmented on a grid three times
 * coarser than its pixels, where those lines blend into their ground.
 */
async function lineChart(): Promise<{ png: Buffer; rgba: Buffer }> {
  let boxes = '';
  for (let y = 40; y + 300 < 1800; y += 500) {
    for (let x = 30; x + 400 < 2400; x += 600) {
      const frame = ((x + y) / 20) % 3 < 1 ? '#2a3f9f' : '#8b1a1a';
      boxes += `<rect x="${x + 0.5}" y="${y + 0.5}" width="400" height="300" rx="5" fill="url(#f)" stroke="${frame}"/>`;
      boxes += `<rect x="${x + 6}" y="${y + 8}" width="388" height="10" fill="${frame}"/>`;
      boxes += `<path d="M${x + 200.5} ${y + 300.5}V${y + 500.5}M${x + 0.5} ${y + 479.5}h600" stroke="#222" fill="none"/>`;
    }
  }
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1800"><defs>' +
    '<linearGradient id="g" x2="1" y2="1"><stop stop-color="#d6f0d6"/><stop offset="1" stop-color="#f4fff4"/></linearGradient>' +
    '<linearGradient id="f" x2="0" y2="1"><stop stop-color="#fff8f0"/><stop offset="1" stop-color="#f6e6d6"/></linearGradient>' +
    `</defs><rect width="2400" height="1800" fill="url(#g)"/>${boxes}</svg>`;
  const { rgba } = await renderFixture(svg);
  return { png: await sharp(rgba, { raw: { width: 2400, height: 1800, channels: 4 } }).png().toBuffer(), rgba };
}

test('artwork whose regions lose the detail of its own scale is traced from its palette, kept when it draws that detail better', async () => {
  const regions = { kind: 'logo' } as const;
  const chart = { originalWidth: 2400, originalHeight: 1800 } as DecodedImage;
  assert.deepEqual(palettePlan(regions, 0.9, true, chart, () => 0.9 - DETAIL_GAP - 0.01), { kind: 'logo', path: 'palette', reason: 'detail', costFactor: 1 });
  assert.equal(palettePlan(regions, 0.9, true, chart, () => 0.9 - DETAIL_GAP + 0.01), undefined, 'detail near the whole stands');
  assert.equal(palettePlan(regions, 0.9, true, chart), undefined, 'no detail measured (the check sees every pixel)');
  assert.equal(palettePlan(regions, 0.9, false, chart, () => 0.5), undefined, 'traced from its palette already');
  assert.equal(palettePlan(regions, PALETTE_BELOW - 0.01, true, chart, () => 0.5)?.reason, 'palette', 'a low score keeps its own reason and margin');
  const { png, rgba: source } = await lineChart();
  const result = await convertImage({ image: png, params: DEFAULT_PARAMS }, { ...LIMITS, untimed: true });
  const detail = result.check.attempts.find((a) => a.reason === 'detail');
  assert.ok(detail, result.check.attempts.map((a) => `${a.kind} ${a.reason} ${a.fidelity}`).join(', '));
  assert.equal(detail.kind, 'logo');
  assert.equal(result.fidelity, detail.fidelity, 'the palette trace is kept');
  // The frames are drawn: along a box's left frame, the result is darker than the fill beside it by
  // at least a third of the source's contrast (the regions' trace: an eighth; this trace: about half,
  // the frame a pixel wide traced at two working pixels for three of the image's).
  const rendered = renderSvg(result.svg, 2400, 1800);
  const luma = (rgba: Uint8Array, x: number, y: number) => {
    const at = (y * 2400 + x) * 4;
    return 0.299 * (rgba[at] as number) + 0.587 * (rgba[at + 1] as number) + 0.114 * (rgba[at + 2] as number);
  };
  let sourceDrop = 0;
  let resultDrop = 0;
  for (let y = 1100; y < 1300; y++) {
    sourceDrop += luma(source, 634, y) - luma(source, 630, y);
    resultDrop += luma(rendered, 634, y) - luma(rendered, 630, y);
  }
  assert.ok(resultDrop > sourceDrop / 3, `frame contrast ${resultDrop / 200} against the source's ${sourceDrop / 200}`);
});
