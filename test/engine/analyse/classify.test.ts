// One image per rule of `mode: auto` (docs/parameters.md, "How auto decides"): each test checks the
// kind the whole conversion picks, and the statistic the rule turns on, so a pass is not luck.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { blockScale, blockSize, CLASSIFY_PIXELS, classifyImage, doubtfulAlternative, FEW_COLOURS, hasPixelGrid, measureImage, RULES, type ImageStats } from '../../../src/engine/analyse/classify.ts';
import { renderSvg } from '../../../src/engine/check/render.ts';
import { resolveCurveMode } from '../../../src/engine/trace/vtracer.ts';
import { convertImage, firstDecode, statisticsOf } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { corpusImage } from '../corpus.ts';
import { decodeImage, type DecodedImage } from '../../../src/engine/analyse/decode.ts';
import { fitToPixels, WORKING_PIXELS } from '../../../src/engine/analyse/prepare.ts';
import { antiAliasedIcon, flatIllustrationJpeg, gradientEmoji, hardEdgedGradientCartoon, manyColourSpriteSheet, randomSequence, greyscalePhoto, handwritingPath, handwrittenLetter, letterOnMount, nightSky, pixelSprite, pixelSpriteWithShadow, renderSvg as renderFixture } from '../fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };

async function chosenKind(image: Buffer): Promise<string> {
  return (await convertImage({ image, params: DEFAULT_PARAMS }, LIMITS)).chosen.mode;
}

/** A corpus image flattened on white and saved as RGB, without a palette, and its decode at the first PNG size. */
async function resavedAsRgb(file: string): Promise<{ bytes: Buffer; decoded: DecodedImage }> {
  const bytes = await sharp(corpusImage(file)).flatten({ background: '#ffffff' }).png({ palette: false }).toBuffer();
  assert.equal((await sharp(bytes).metadata()).isPalette, false, 'saved as RGB, not indexed');
  return { bytes, decoded: await decodeImage(bytes, { maxInputPixels: LIMITS.maxInputPixels, maxWorkingPixels: 2_000_000 }) };
}

/** The statistics of an image small enough to be measured whole, as the classifier measures it. */
async function statsOf(image: Buffer): Promise<ImageStats> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return measureImage(data, info.width, info.height);
}

test('pixel art: hard edges, few colours, no anti-aliasing blends, binary alpha → pixelart', async () => {
  const sprite = await pixelSprite(40, 5);
  const stats = await statsOf(sprite);
  assert.ok(stats.colourEdges >= RULES.pixelArt.minColourEdges, `colourEdges ${stats.colourEdges}`);
  assert.ok(stats.aaBlendShare <= RULES.pixelArt.maxAaBlendShare, `aaBlendShare ${stats.aaBlendShare}`);
  assert.equal(stats.hardAlphaShare, 1);
  assert.equal(await chosenKind(sprite), 'pixelart');
});

test('fail-safe: a sheet of sprites in hundreds of colours, cut out with hard alpha and hard colour steps, is pixel art; a hard-edged cartoon shaded in gradients is not', async () => {
  const rule = RULES.pixelArt;
  const sheet = await manyColourSpriteSheet(3);
  const sheetStats = await statsOf(sheet);
  // More colours than a palette: the evidence is the sheet's, not the palette's.
  assert.ok(sheetStats.distinctColours > rule.maxColours, `colours ${sheetStats.distinctColours}`);
  assert.ok(sheetStats.transparentShare >= rule.minSheetTransparency && sheetStats.hardAlphaShare >= rule.minManyColourSheetHardAlpha, `alpha ${sheetStats.hardAlphaShare}`);
  assert.ok(sheetStats.aaBlendShare <= rule.maxManyColourSheetBlendShare, `blends ${sheetStats.aaBlendShare}`);
  assert.ok(sheetStats.softEdgeShare <= rule.maxManyColourSheetSoftEdgeShare, `soft ${sheetStats.softEdgeShare}`);
  assert.equal(await chosenKind(sheet), 'pixelart');
  // Hard alpha and an aliased outline, but its fill changes in soft steps: artwork.
  const cartoon = await hardEdgedGradientCartoon();
  const cartoonStats = await statsOf(cartoon);
  assert.ok(cartoonStats.distinctColours > rule.maxColours && cartoonStats.hardAlphaShare >= rule.minManyColourSheetHardAlpha, `colours ${cartoonStats.distinctColours}, alpha ${cartoonStats.hardAlphaShare}`);
  assert.ok(cartoonStats.softEdgeShare > rule.maxManyColourSheetSoftEdgeShare, `soft ${cartoonStats.softEdgeShare}`);
  assert.notEqual(await chosenKind(cartoon), 'pixelart');
});

test('pixel art enlarged 4× by repeating pixels is measured at its own grid and stays pixelart', async () => {
  const enlarged = await pixelSprite(40, 5, 4);
  const { data, info } = await sharp(enlarged).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  assert.equal(blockScale(data, info.width, info.height), 4);
  const stats = measureImage(data, info.width, info.height);
  assert.equal(stats.pixelScale, 4);
  // Measured on the 160 px image itself, four in five neighbours would be equal: flat artwork.
  assert.ok(stats.equalNeighbourShare < RULES.pixelArt.maxEqualNeighbourShare);
  assert.equal(await chosenKind(enlarged), 'pixelart');
});

test('fail-safe: pixel art flattened on white stays pixel art — its white ground is neither a rare shade nor the artwork\'s flat area', async () => {
  // A terrain tile sheet (corpus): on white, four in five neighbours are the ground's.
  const terrain = await sharp(corpusImage('pixelart/grafxkid_grassland_terrain.png')).flatten({ background: '#ffffff' }).png().toBuffer();
  const terrainStats = await statsOf(terrain);
  assert.ok(terrainStats.equalNeighbourShare >= RULES.pixelArt.maxEqualNeighbourShare, `equal ${terrainStats.equalNeighbourShare}`);
  assert.ok(terrainStats.equalOffGroundShare < RULES.pixelArt.maxEqualNeighbourShare, `equal off the ground ${terrainStats.equalOffGroundShare}`);
  assert.equal(await chosenKind(terrain), 'pixelart');
  // A game sprite (wide/, tune part): counted against the white, its shades were rare enough to read as anti-aliasing.
  const sprite = await sharp(corpusImage('wide/pixelart/freedoom_sprite_sawgc0.png')).flatten({ background: '#ffffff' }).png().toBuffer();
  const spriteStats = await statsOf(sprite);
  assert.ok(spriteStats.aaBlendShare <= RULES.pixelArt.maxAaBlendShare, `aaBlendShare ${spriteStats.aaBlendShare}`);
  assert.equal(await chosenKind(sprite), 'pixelart');
});

test('an anti-aliased 32 px icon is logo, not pixel art: its edges are blends and its alpha is soft', async () => {
  const icon = await antiAliasedIcon(32);
  const stats = await statsOf(icon);
  assert.ok(stats.distinctColours <= RULES.pixelArt.maxColours, 'few enough colours to pass for pixel art');
  assert.ok(stats.aaBlendShare > RULES.pixelArt.maxAaBlendShare, `aaBlendShare ${stats.aaBlendShare}`);
  assert.ok(stats.hardAlphaShare < RULES.pixelArt.minHardAlphaShare, `hardAlphaShare ${stats.hardAlphaShare}`);
  assert.equal(await chosenKind(icon), 'logo');
});

test('an emoji of 48 px drawn in gradients is logo: too small for the flat-colour test to see its fills', async () => {
  const emoji = await gradientEmoji(48);
  const stats = await statsOf(emoji);
  assert.ok(stats.equalNeighbourShare <= RULES.flatColour.minEqualNeighbourShare, `equalNeighbourShare ${stats.equalNeighbourShare}`);
  assert.ok(stats.nearFlatShare <= RULES.flatColour.minNearFlatShare, `nearFlatShare ${stats.nearFlatShare}`);
  assert.equal(classifyImage(stats, { originalWidth: 48, originalHeight: 48, palette: false }), 'logo');
  assert.equal(await chosenKind(emoji), 'logo');
});

test('handwriting on yellowed paper under uneven light, as JPEG, is ink on paper → sketch', async () => {
  const letter = await handwrittenLetter({ width: 640, height: 420, paper: [236, 222, 186], ink: [60, 38, 22], darkestLight: 0.55, seed: 7 });
  const { ink } = await statsOf(letter);
  assert.ok(ink, 'an opaque image is measured as ink on paper');
  assert.ok(ink.offLineShare <= RULES.inkOnPaper.maxOffLineShare, `offLineShare ${ink.offLineShare}`);
  assert.ok(ink.continuousToneShare <= RULES.inkOnPaper.maxContinuousToneShare, `continuousToneShare ${ink.continuousToneShare}`);
  assert.equal(await chosenKind(letter), 'sketch');
});

test('a letter on a grey mount is ink on paper → sketch', async () => {
  const { image } = await letterOnMount(9);
  assert.equal(await chosenKind(image), 'sketch');
});

test('a greyscale photograph is photo: its colours lie on one line too, but its tones are continuous', async () => {
  const photo = await greyscalePhoto(640, 480, 3);
  const stats = await statsOf(photo);
  assert.ok(stats.ink);
  assert.ok(stats.ink.offLineShare <= RULES.inkOnPaper.maxOffLineShare, 'grey, like a scan');
  assert.ok(stats.ink.continuousToneShare > RULES.inkOnPaper.maxContinuousToneShare, `continuousToneShare ${stats.ink.continuousToneShare}`);
  assert.equal(await chosenKind(photo), 'photo');
});

test('flat-colour artwork saved as JPEG is logo: its neighbours are equal up to the JPEG noise', async () => {
  const skyline = await flatIllustrationJpeg(640, 420, 11);
  const stats = await statsOf(skyline);
  assert.ok(stats.equalNeighbourShare <= RULES.flatColour.minEqualNeighbourShare, `JPEG noise breaks exact equality: ${stats.equalNeighbourShare}`);
  assert.ok(stats.nearFlatShare > RULES.flatColour.minNearFlatShare, `nearFlatShare ${stats.nearFlatShare}`);
  assert.ok(stats.offAxisShare > RULES.flatColour.minOffAxisShare, 'a colour image');
  assert.equal(await chosenKind(skyline), 'logo');
});

// The fail-safe rules of issue 18: what a wrong guess may never do.

/** Share of the image drawn at least half opaque, in the PNG and in the SVG rendered at its size. */
async function coverages(image: Buffer, svg: string): Promise<{ source: number; result: number }> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const rendered = renderSvg(svg, info.width, info.height);
  const share = (rgba: Uint8Array) => {
    let opaque = 0;
    for (let i = 3; i < rgba.length; i += 4) if ((rgba[i] as number) >= 128) opaque++;
    return opaque / (info.width * info.height);
  };
  return { source: share(data), result: share(rendered) };
}

/** A JPEG as the engine measures it: decoded at the photo size, then at most CLASSIFY_PIXELS. */
async function sampled(jpeg: Buffer): Promise<[Buffer, number, number]> {
  const decoded = await decodeImage(jpeg, { maxInputPixels: LIMITS.maxInputPixels, maxWorkingPixels: WORKING_PIXELS.photo });
  const sample = await fitToPixels(decoded, CLASSIFY_PIXELS);
  return [sample.rgba, sample.width, sample.height];
}

async function drawn(svg: string): Promise<Buffer> {
  const { rgba, width, height } = await renderFixture(svg);
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

test('fail-safe: light artwork on transparency is artwork, not the paper of a drawing; its coverage survives', async () => {
  // A near-white glyph with one dark detail, as the document icon.
  const glyph = await drawn(
    '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96"><path d="M20 8h40l16 16v64H20z" fill="#f3f4f6"/><path d="M30 40h36v4H30z" fill="#1f2937"/></svg>',
  );
  const result = await convertImage({ image: glyph, params: DEFAULT_PARAMS }, LIMITS);
  assert.equal(result.chosen.mode, 'logo');
  const { source, result: traced } = await coverages(glyph, result.svg);
  assert.ok(Math.abs(source - traced) < 0.02, `coverage ${source.toFixed(3)} → ${traced.toFixed(3)}`);
});

test('fail-safe: a glossy light icon with a dark rim and a shadow on transparency is in doubt as ink: traced as artwork too, which keeps its shading', async () => {
  // A menu icon's three bars: light grey gradients, a dark rim, a soft dark shadow. Near white and
  // near black as line art is, but its changes are soft.
  const bars = [64, 112, 160].map((y) => `<rect x="34" y="${y + 6}" width="188" height="26" rx="13" fill="#000" fill-opacity="0.9" filter="url(#s)"/><rect x="32" y="${y}" width="192" height="28" rx="14" fill="url(#g)" stroke="#383838" stroke-width="3"/>`);
  const icon = await drawn(
    '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#fafafa"/><stop offset="0.5" stop-color="#e4e4e4"/><stop offset="1" stop-color="#f4f4f4"/></linearGradient>' +
      `<filter id="s" x="-20%" y="-50%" width="140%" height="200%"><feGaussianBlur stdDeviation="3"/></filter></defs>${bars.join('')}</svg>`,
  );
  const stats = await statsOf(icon);
  assert.ok(stats.softEdgeShare >= RULES.softInkOnTransparency.minSoftEdgeShare, `soft changes ${stats.softEdgeShare.toFixed(2)}`);
  const result = await convertImage({ image: icon, params: DEFAULT_PARAMS }, LIMITS);
  assert.deepEqual(result.check.attempts.map((a) => [a.kind, a.reason]).slice(0, 2), [['sketch', 'first'], ['logo', 'doubt']]);
  // As ink its bars came back flat grey (0.823); as artwork they keep their shading.
  assert.equal(result.chosen.mode, 'logo');
  assert.ok(result.fidelity > 0.9, `fidelity ${result.fidelity}`);
});

test('fail-safe: line art on transparency traced as ink keeps every opaque pixel (the paper is painted, not dropped)', async () => {
  // A white figure outlined in black, on transparency, forced through the ink path.
  const figure = await drawn(
    '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><ellipse cx="160" cy="120" rx="110" ry="80" fill="#fff" stroke="#000" stroke-width="6"/><path d="M110 110q50 40 100 0" fill="none" stroke="#000" stroke-width="4"/></svg>',
  );
  const result = await convertImage({ image: figure, params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  assert.equal(result.chosen.mode, 'sketch');
  const { source, result: traced } = await coverages(figure, result.svg);
  assert.ok(Math.abs(source - traced) < 0.01, `coverage ${source.toFixed(3)} → ${traced.toFixed(3)}`);
  // Inside the figure, white: the paper is there.
  const inside = renderSvg(result.svg, 320, 240).subarray((60 * 320 + 160) * 4, (60 * 320 + 160) * 4 + 4);
  assert.deepEqual([...inside], [255, 255, 255, 255]);
});

test('fail-safe: a photograph is never traced pixel-exact, nor is dense artwork', async () => {
  const photo = await greyscalePhoto(1800, 1350, 5);
  const result = await convertImage({ image: photo, params: DEFAULT_PARAMS }, LIMITS);
  assert.equal(result.chosen.mode, 'photo');
  assert.notEqual(result.chosen.curveMode, 'none');
  assert.ok(result.check.attempts.every((attempt) => attempt.curveMode !== 'none'));
  for (const kind of ['logo', 'photo', 'sketch'] as const) assert.notEqual(resolveCurveMode('auto', kind), 'none');
});

test('fail-safe: pixel art needs positive evidence — a grey 1-bit drawing is not pixel art, however hard its edges', async () => {
  const { rgba, width, height } = await renderFixture(
    `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" shape-rendering="crispEdges"><rect width="300" height="200" fill="#fff"/><path d="${handwritingPath({ x: 10, y: 10, width: 280, height: 180 }, 3, 30)}" fill="none" stroke="#000" stroke-width="3"/></svg>`,
  );
  const image = await sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
  const stats = await statsOf(image);
  assert.ok(stats.aaBlendShare <= RULES.pixelArt.maxAaBlendShare, 'no anti-aliasing at all');
  assert.notEqual(classifyImage(stats, { originalWidth: width, originalHeight: height, palette: false }), 'pixelart');
  assert.notEqual(await chosenKind(image), 'pixelart');
});

test('fail-safe: pixel art needs positive evidence — an outline icon in one ink on white, anti-aliased at 24 and 32 px, is not pixel art', async () => {
  // Hard alpha (it is opaque), some 20 colours, and the few shades of its anti-aliasing recur
  // along its curves, more often than a rare colour: each is used almost only between ink and paper.
  for (const size of [24, 32]) {
    const icon = await drawn(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 24 24"><rect width="24" height="24" fill="#fff"/>` +
        '<g fill="none" stroke="#334155" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M20 10c0 6-8 12-8 12s-8-6-8-12a8 8 0 0 1 16 0Z"/><circle cx="12" cy="10" r="3"/></g></svg>',
    );
    const stats = await statsOf(icon);
    assert.equal(stats.hardAlphaShare, 1);
    assert.ok(stats.distinctColours <= RULES.pixelArt.maxColours && stats.colourEdges >= RULES.pixelArt.minColourEdges);
    assert.ok(stats.aaBlendShare > RULES.pixelArt.maxAaBlendShare * 3, `${size} px: aaBlendShare ${stats.aaBlendShare}`);
    assert.equal(await chosenKind(icon), 'logo', `${size} px`);
  }
});

test('fail-safe: a dim photograph is a photo — its few levels make neighbours equal, its changes stay ramps', async () => {
  const dim = await sharp(corpusImage('photo/kodim23.png')).linear(0.5, -20).jpeg({ quality: 85 }).toBuffer();
  const facts = { originalWidth: 768, originalHeight: 512, palette: false };
  const stats = await statsOf(dim);
  // Flat colour by its near-equal neighbours (RULES.flatColour), and a photograph's ramps.
  assert.ok(stats.nearFlatShare > RULES.flatColour.minNearFlatShare && stats.offAxisShare > RULES.flatColour.minOffAxisShare, `nearFlat ${stats.nearFlatShare}`);
  assert.ok(stats.rampShare >= RULES.photoRamps.minRampShare, `ramps ${stats.rampShare}`);
  assert.equal(classifyImage(stats, facts), 'photo');
  const result = await convertImage({ image: dim, params: DEFAULT_PARAMS }, LIMITS);
  assert.equal(result.chosen.mode, 'photo');
});

test('fail-safe: shading without edges is a photograph, not flat colour: a sky over hills comes back smooth, not in bands', async () => {
  // 3.8 MP: a sky lightening to the horizon, grain of ±3 levels, 40 stars. Its steps are a level or
  // two, too small for the ramp test (rule 4); equal up to its grain, it passed for flat colour.
  const { jpeg } = await nightSky(2400, 1600, 11, 40);
  const { first } = await firstDecode(jpeg, LIMITS.maxInputPixels);
  const stats = await statisticsOf(first);
  assert.ok(stats.rampShare < RULES.photoRamps.minRampShare, `ramps ${stats.rampShare}: not rule 4's`);
  assert.ok(stats.nearFlatShare > RULES.flatColour.minNearFlatShare, `near-flat ${stats.nearFlatShare}: flat colour by rule 5`);
  assert.ok(stats.softEdgeShare >= RULES.smoothShading.minSoftEdgeShare, `soft ${stats.softEdgeShare}`);
  assert.ok(stats.equalNeighbourShare < RULES.photoRamps.maxEqualNeighbourShare, `equal ${stats.equalNeighbourShare}`);
  assert.equal(classifyImage(stats, first), 'photo');
  // Over 2 MP, no second trace as a logo (RULES.fallThrough.maxPixels).
  assert.equal(doubtfulAlternative('photo', stats, first), undefined);
  const result = await convertImage({ image: jpeg, params: DEFAULT_PARAMS }, LIMITS);
  assert.equal(result.chosen.mode, 'photo');
  // Down the sky, the median luma of each strip 200 px wide changes smoothly from row to row. Traced
  // from its palette as flat colour, the bands stepped by up to 7 levels; the photograph's path by
  // at most 1.4 (one or two levels of green).
  const pixels = renderSvg(result.svg, 2400, 1600);
  let steepest = 0;
  for (let left = 0; left < 2400; left += 200) {
    let previous: number | undefined;
    for (let y = 0; y < 1000; y++) {
      const lumas: number[] = [];
      for (let x = left; x < left + 200; x++) {
        const i = (y * 2400 + x) * 4;
        lumas.push(0.2126 * (pixels[i] as number) + 0.7152 * (pixels[i + 1] as number) + 0.0722 * (pixels[i + 2] as number));
      }
      const median = lumas.sort((a, b) => a - b)[100] as number;
      if (previous !== undefined) steepest = Math.max(steepest, Math.abs(median - previous));
      previous = median;
    }
  }
  assert.ok(steepest <= 2, `the sky steps by ${steepest.toFixed(2)} levels between two rows`);
});

test('shading without edges of at most 2 MP is also traced as a logo, kept only if it wins by the margin; flat colour saved as JPEG keeps its equal neighbours and stays a logo', async () => {
  const { jpeg } = await nightSky(1200, 800, 11, 10);
  const { first } = await firstDecode(jpeg, LIMITS.maxInputPixels);
  const stats = await statisticsOf(first);
  assert.equal(classifyImage(stats, first), 'photo');
  assert.deepEqual(doubtfulAlternative('photo', stats, first), { kind: 'logo', margin: RULES.fallThrough.minLogoGain });
  // The corpus's flag as JPEG: every change soft (its three fills' noise), but most neighbours equal.
  const flag = await sharp(corpusImage('edge/sixteen_bit_rgb_flag_nl.png')).flatten({ background: '#ffffff' }).jpeg({ quality: 70 }).toBuffer();
  const flagDecode = (await firstDecode(flag, LIMITS.maxInputPixels)).first;
  const flagStats = await statisticsOf(flagDecode);
  assert.ok(flagStats.softEdgeShare >= RULES.smoothShading.minSoftEdgeShare, `soft ${flagStats.softEdgeShare}`);
  assert.ok(flagStats.equalNeighbourShare >= RULES.photoRamps.maxEqualNeighbourShare, `equal ${flagStats.equalNeighbourShare}`);
  assert.equal(classifyImage(flagStats, flagDecode), 'logo');
});

test('a dark image taken for flat colour with a photograph\'s ramps is in doubt: the self-check also traces it as a photo', async () => {
  // So dark that most neighbours are exactly equal: flat colour by the first rule.
  const dark = await sharp(corpusImage('wide/photo/nasa_shuttle_endeavour_ground.jpg')).linear(0.25, -10).jpeg({ quality: 85 }).toBuffer();
  const { width = 0, height = 0 } = await sharp(dark).metadata();
  const stats = measureImage(...(await sampled(dark)));
  assert.ok(stats.equalNeighbourShare > RULES.flatColour.minEqualNeighbourShare, `equal ${stats.equalNeighbourShare}`);
  assert.equal(classifyImage(stats, { originalWidth: width, originalHeight: height, palette: false }), 'logo');
  assert.equal(doubtfulAlternative('logo', stats, { originalWidth: width, originalHeight: height, palette: false })?.kind, 'photo');
  const result = await convertImage({ image: dark, params: DEFAULT_PARAMS }, LIMITS);
  const [first, other] = result.check.attempts;
  assert.deepEqual([first?.kind, other?.kind, other?.reason], ['logo', 'photo', 'doubt']);
  assert.equal(result.chosen.mode, (other?.fidelity ?? 0) > (first?.fidelity ?? 0) ? 'photo' : 'logo');
});

test('an image taken for flat colour with almost no equal neighbours and nearly a photograph\'s ramps is in doubt: traced as a photo too, which wins', async () => {
  // The shuttle photograph at a quarter of its size: fewer ramps than the photo rule asks, and
  // near-flat colour by JPEG's standards, so flat colour by rule 5.
  const quarter = await sharp(corpusImage('wide/photo/nasa_shuttle_endeavour_ground.jpg')).resize(318).png().toBuffer();
  const { width = 0, height = 0 } = await sharp(quarter).metadata();
  const facts = { originalWidth: width, originalHeight: height, palette: false };
  const stats = measureImage(...(await sampled(quarter)));
  assert.ok(stats.rampShare >= RULES.noisyRamps.minRampShare && stats.rampShare < RULES.photoRamps.minRampShare, `ramps ${stats.rampShare}`);
  assert.ok(stats.equalNeighbourShare < RULES.noisyRamps.maxEqualNeighbourShare, `equal ${stats.equalNeighbourShare}`);
  assert.equal(classifyImage(stats, facts), 'logo');
  assert.equal(doubtfulAlternative('logo', stats, facts)?.kind, 'photo');
  const result = await convertImage({ image: quarter, params: DEFAULT_PARAMS }, LIMITS);
  const [first, other] = result.check.attempts;
  assert.deepEqual([first?.kind, other?.kind, other?.reason], ['logo', 'photo', 'doubt']);
  // Posterised as flat colour (the ground crew washed out); its texture kept as a photo.
  assert.ok((other?.fidelity ?? 0) > (first?.fidelity ?? 0) + 0.03, `photo ${other?.fidelity} against logo ${first?.fidelity}`);
  assert.equal(result.chosen.mode, 'photo');
});

test('a colour image that is a photograph only by the last rule is in doubt: traced as a logo too, kept when it wins by the margin', async () => {
  // The corpus banner halved: too few ramps for a photograph, too few equal neighbours for flat
  // colour. Its logo trace keeps the lettering; the photo trace blurs it into polygons.
  const banner = await sharp(corpusImage('logo/visioncortex_banner_1100x120.png')).resize(550).png().toBuffer();
  const { width = 0, height = 0 } = await sharp(banner).metadata();
  const facts = { originalWidth: width, originalHeight: height, palette: false };
  const stats = await statsOf(banner);
  assert.ok(stats.rampShare < RULES.photoRamps.minRampShare || stats.equalNeighbourShare >= RULES.photoRamps.maxEqualNeighbourShare, `ramps ${stats.rampShare}`);
  assert.ok(stats.equalUnclippedShare <= RULES.photoDoubt.minEqualNeighbourShare, `equal unclipped ${stats.equalUnclippedShare}`);
  assert.equal(classifyImage(stats, facts), 'photo');
  assert.deepEqual(doubtfulAlternative('photo', stats, facts), { kind: 'logo', margin: RULES.fallThrough.minLogoGain });
  const result = await convertImage({ image: banner, params: DEFAULT_PARAMS }, LIMITS);
  const [first, other] = result.check.attempts;
  assert.deepEqual([first?.kind, other?.kind, other?.reason], ['photo', 'logo', 'doubt']);
  assert.ok((other?.fidelity ?? 0) > (first?.fidelity ?? 0) + RULES.fallThrough.minLogoGain, `logo ${other?.fidelity} against photo ${first?.fidelity}`);
  assert.equal(result.chosen.mode, 'logo');
});

test('a photograph cut out on transparency falls through to photo too, and keeps its photo trace when the logo trace wins by less than the margin', async () => {
  // The corpus rose halved: the logo trace scores a little higher on the soft alpha edge, but
  // posterises the petals into flat bands; the photo trace keeps their texture.
  const rose = await sharp(corpusImage('edge/webp_alpha_yellow_rose.webp')).resize(200).png().toBuffer();
  const result = await convertImage({ image: rose, params: DEFAULT_PARAMS }, LIMITS);
  const [first, other] = result.check.attempts;
  assert.deepEqual([first?.kind, other?.kind, other?.reason], ['photo', 'logo', 'doubt']);
  assert.ok((other?.fidelity ?? 0) <= (first?.fidelity ?? 0) + RULES.fallThrough.minLogoGain, `logo ${other?.fidelity} against photo ${first?.fidelity}`);
  assert.equal(result.chosen.mode, 'photo');
});

test('a large image that falls through to photo is not traced a second time', () => {
  // Statistics that fall through to rule 6 (few ramps, few equal neighbours, colour), at the size of a 12 MP photograph and of a 1.9 MP one.
  const facts = { originalWidth: 4000, originalHeight: 3000, palette: false };
  const stats = { rampShare: 0.35, equalNeighbourShare: 0.3, equalUnclippedShare: 0.1, transparentShare: 0, meanChroma: 30, offAxisShare: 0.2 } as ImageStats;
  assert.ok(facts.originalWidth * facts.originalHeight > RULES.fallThrough.maxPixels);
  assert.equal(doubtfulAlternative('photo', stats, facts), undefined);
  assert.deepEqual(doubtfulAlternative('photo', stats, { ...facts, originalWidth: 1600, originalHeight: 1200 }), { kind: 'logo', margin: RULES.fallThrough.minLogoGain });
});

test('artwork saved as JPEG keeps its equal neighbours: a logo, and (it is not dark) no photo is traced beside it', async () => {
  // JPEG puts ramps at the logo's edges, as many as a photograph has; fidelity would favour a
  // photo trace that keeps the noise, so only dark images are in doubt the other way.
  const { rgba, width, height } = await renderFixture(
    '<svg xmlns="http://www.w3.org/2000/svg" width="480" height="320"><rect width="480" height="320" fill="#fff"/><circle cx="160" cy="160" r="110" fill="#36a2eb"/><path d="M250 70h170v180H250z" fill="#ff6384"/><text x="60" y="300" font-size="28" font-family="sans-serif" fill="#333">Flat logo as JPEG</text></svg>',
  );
  const jpeg = await sharp(rgba, { raw: { width, height, channels: 4 } }).jpeg({ quality: 40 }).toBuffer();
  const stats = await statsOf(jpeg);
  assert.ok(stats.rampShare >= RULES.photoRamps.minRampShare, `ramps ${stats.rampShare}`);
  const facts = { originalWidth: width, originalHeight: height, palette: false };
  assert.equal(classifyImage(stats, facts), 'logo');
  assert.equal(doubtfulAlternative('logo', stats, facts), undefined);
  const result = await convertImage({ image: jpeg, params: DEFAULT_PARAMS }, LIMITS);
  assert.equal(result.chosen.mode, 'logo');
  assert.ok(result.check.attempts.every((attempt) => attempt.kind !== 'photo'));
});

test('fail-safe: pixel art enlarged unevenly (5 × 6 blocks) is found at its own grid', async () => {
  const native = await pixelSprite(40, 8);
  const stretched = await sharp(native).resize(200, 240, { kernel: 'nearest', fit: 'fill' }).png().toBuffer();
  const { data, info } = await sharp(stretched).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual(blockSize(data, info.width, info.height), { width: 5, height: 6 });
  assert.equal(await chosenKind(stretched), 'pixelart');
});

test('fail-safe: a small greyscale photograph is a photo, not an icon and not ink', async () => {
  for (const side of [64, 128]) {
    const photo = await sharp(await greyscalePhoto(640, 480, 3)).resize(side).png().toBuffer();
    assert.equal(await chosenKind(photo), 'photo', `${side} px`);
  }
});

test('fail-safe: a small greyscale photograph of a dark texture is a photo — the light parts of bricks are no paper', async () => {
  // wide/ (tune part), saved in grey: its mortar is the lightest tone, and its shading is too small to count as continuous.
  const bricks = await sharp(corpusImage('wide/photo/small_wuffs_bricks_160x120.jpeg')).greyscale().png().toBuffer();
  const stats = await statsOf(bricks);
  assert.ok(stats.ink === undefined || stats.ink.paperLuma < RULES.inkOnPaper.minPaperLuma, `paper luma ${stats.ink?.paperLuma}`);
  assert.equal(await chosenKind(bricks), 'photo');
});

test('fail-safe: an icon on a plain ground saved as JPEG is a logo; a thumbnail of a photograph fills its frame and is a photo', async () => {
  // JPEG noise takes the icon's equal neighbours; its ground stays plain along its edge.
  const icon = await sharp(corpusImage('wide/small/fa_heart_red_48_white.png')).jpeg({ quality: 70 }).toBuffer();
  const iconStats = await statsOf(icon);
  assert.ok(iconStats.equalNeighbourShare < RULES.icon.thumbnailMaxEqual, `equal ${iconStats.equalNeighbourShare}`);
  assert.ok(iconStats.plainBorderShare >= RULES.icon.minPlainBorderShare, `plain border ${iconStats.plainBorderShare}`);
  assert.equal(await chosenKind(icon), 'logo');
  // A photograph shrunk to 48 px, with few ramps left to tell it by.
  const thumbnail = await sharp(corpusImage('wide/photo/usnavy_sailor_examines_patient.jpg')).resize(48).png().toBuffer();
  const thumbnailStats = await statsOf(thumbnail);
  assert.ok(thumbnailStats.plainBorderShare < RULES.icon.minPlainBorderShare, `plain border ${thumbnailStats.plainBorderShare}`);
  assert.equal(await chosenKind(thumbnail), 'photo');
});

test('flat artwork halved keeps its steps: a street map loses its equal neighbours to resampling and is still a logo', async () => {
  const map = corpusImage('wide/edge/map_osm_carto_preview.png');
  const { width = 0 } = await sharp(map).metadata();
  const halved = await sharp(map).resize(Math.round(width / 2)).png().toBuffer();
  const stats = await statsOf(halved);
  assert.ok(stats.equalUnclippedShare < RULES.flatColour.minEqualWithFewRamps, `equal ${stats.equalUnclippedShare}`);
  assert.ok(stats.rampShare < RULES.flatColour.maxRampShare, `ramps ${stats.rampShare}`);
  assert.equal(await chosenKind(halved), 'logo');
});

test('pixel art enlarged past the classifier\'s sample size is measured on its own grid', async () => {
  const sprite = await pixelSprite(100, 6, 8); // 800 × 800: a smooth reduction would blend its pixels
  const { width = 0, height = 0 } = await sharp(sprite).metadata();
  assert.ok(width * height > CLASSIFY_PIXELS);
  assert.equal(await chosenKind(sprite), 'pixelart');
});

/** `file` (a corpus image) repeated `columns` × `rows` times on one sheet, saved as PNG (indexed, when `palette`). */
async function sheetOf(file: string, columns: number, rows: number, palette = false): Promise<Buffer> {
  const tile = corpusImage(file);
  const { width = 0, height = 0 } = await sharp(tile).metadata();
  const tiles = Array.from({ length: columns * rows }, (_, i) => ({ input: tile, left: (i % columns) * width, top: Math.floor(i / columns) * height }));
  const sheet = await sharp({ create: { width: width * columns, height: height * rows, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).composite(tiles).png().toBuffer();
  return palette ? sharp(sheet).png({ palette: true, colours: 256, dither: 0 }).toBuffer() : sheet;
}

test('fail-safe: a tile sheet in its palette, or cut out on transparency, larger than the classifier\'s sample is pixel art, its evidence measured at its own pixels', async () => {
  // 960 × 880 (0.84 MP), indexed as a game stores its sheets: reduced to the sample, every pixel
  // edge is blended into anti-aliasing.
  const sheet = await sheetOf('pixelart/kenney_tiny_dungeon_tilemap.png', 5, 5, true);
  assert.equal((await sharp(sheet).metadata()).isPalette, true);
  const decoded = (await firstDecode(sheet, LIMITS.maxInputPixels)).first;
  assert.ok(decoded.width * decoded.height > CLASSIFY_PIXELS && decoded.width > 512, `${decoded.width} × ${decoded.height}`);
  const reduced = await fitToPixels(decoded, CLASSIFY_PIXELS);
  const reducedStats = measureImage(reduced.rgba, reduced.width, reduced.height);
  assert.ok(reducedStats.distinctColours > RULES.pixelArt.maxColours || reducedStats.aaBlendShare > RULES.pixelArt.maxIndexedAaBlendShare, 'the reduction hides its evidence');
  const stats = await statisticsOf(decoded);
  assert.ok(stats.distinctColours <= RULES.pixelArt.maxColours && stats.aaBlendShare <= RULES.pixelArt.maxAaBlendShare, `own pixels: ${stats.distinctColours} colours, blends ${stats.aaBlendShare}`);
  const result = await convertImage({ image: sheet, params: DEFAULT_PARAMS }, LIMITS);
  assert.deepEqual(result.chosen, { mode: 'pixelart', curveMode: 'none' });
  // Compared at its own pixels, where the exact trace is exact (reduced to 0.25 MP, the reference rings at every pixel edge).
  assert.ok(result.fidelity >= 0.99, `fidelity ${result.fidelity}`);
  // Re-saved as RGB and opaque, a sheet larger than a sprite is not taken: a render or a
  // screenshot quantised to as few colours looks alike.
  const rgbSheet = await sheetOf('pixelart/kenney_tiny_dungeon_tilemap.png', 5, 5);
  assert.notEqual(await chosenKind(await sharp(rgbSheet).flatten({ background: '#000000' }).png().toBuffer()), 'pixelart');
  // Cut out on transparency with binary alpha, as a game lays out its sprites and tiles, it is:
  // renders and screenshots are opaque.
  const rgbStats = await statisticsOf((await firstDecode(rgbSheet, LIMITS.maxInputPixels)).first);
  assert.ok(rgbStats.transparentShare >= RULES.pixelArt.minSheetTransparency, `transparent ${rgbStats.transparentShare}`);
  assert.equal(await chosenKind(rgbSheet), 'pixelart');
  // Anti-aliased artwork as large, in as few colours, is not swept in.
  const shapes = await sheetOf('logo/flat_shapes_transparency_300.png', 3, 3);
  const shapesStats = await statisticsOf((await firstDecode(shapes, LIMITS.maxInputPixels)).first);
  assert.ok(shapesStats.distinctColours <= RULES.pixelArt.maxColours, `its own pixels are measured: ${shapesStats.distinctColours} colours`);
  assert.equal(await chosenKind(shapes), 'logo');
});

test('fail-safe: a 16 px game texture with few colour edges, none blended, is pixel art', async () => {
  // A stone axe of three colours: a handle two pixels wide, a head with a dark rim on two sides.
  const size = 16;
  const rgba = Buffer.alloc(size * size * 4);
  const set = (x: number, y: number, [r, g, b]: readonly [number, number, number]) => rgba.set([r, g, b, 255], (y * size + x) * 4);
  for (let i = 0; i < 9; i++) {
    set(2 + i, 13 - i, [124, 82, 44]);
    set(3 + i, 13 - i, [124, 82, 44]);
  }
  for (let y = 2; y <= 6; y++) for (let x = 8; x <= 13; x++) set(x, y, y === 2 || x === 13 ? [64, 64, 64] : [128, 128, 128]);
  const stats = measureImage(rgba, size, size);
  assert.ok(stats.colourEdges >= RULES.pixelArt.minColourEdges && stats.colourEdges < 16, `colour edges ${stats.colourEdges}: few, as a 16 px sprite has`);
  assert.equal(stats.aaBlendShare, 0);
  const image = await sharp(rgba, { raw: { width: size, height: size, channels: 4 } }).png().toBuffer();
  const result = await convertImage({ image, params: DEFAULT_PARAMS }, LIMITS);
  assert.deepEqual(result.chosen, { mode: 'pixelart', curveMode: 'none' });
});

test('pixel art is taken up to the grid its trace takes whole', () => {
  assert.equal(RULES.pixelArt.maxPixels, WORKING_PIXELS.pixelart);
  assert.ok(RULES.pixelArt.maxLongSide ** 2 < RULES.pixelArt.maxPixels);
});

test('fail-safe: pixel art enlarged past the first decode stays pixel art, traced pixel-exact on its own grid', async () => {
  const sprite = await pixelSprite(400, 7, 4); // 1600 × 1600: the first decode of a PNG is 2 MP
  const result = await convertImage({ image: sprite, params: DEFAULT_PARAMS }, LIMITS);
  assert.deepEqual(result.chosen, { mode: 'pixelart', curveMode: 'none' });
  assert.doesNotMatch(result.svg, /d="[^"]*[cq]/, 'no curve: every block a square');
});

test('fail-safe: a nearest-neighbour enlargement is evidence of pixels as a stored palette is', async () => {
  // A game's 256-colour painted title screen: its shading is over pixel art's anti-aliasing limit
  // unless its palette says it is pixel art. Enlarged 3× and saved as RGB, its blocks say it.
  const title = corpusImage('wide/pixelart/freedoom_titlepic_320x200.png');
  const enlarged = await sharp(title).resize(960, 600, { kernel: 'nearest' }).png({ palette: false }).toBuffer();
  assert.equal((await sharp(enlarged).metadata()).isPalette, false);
  const stats = await statsOf(enlarged);
  assert.ok(stats.aaBlendShare > RULES.pixelArt.maxAaBlendShare && stats.aaBlendShare <= RULES.pixelArt.maxIndexedAaBlendShare, `aaBlendShare ${stats.aaBlendShare}`);
  assert.deepEqual([stats.blockWidth, stats.blockHeight], [3, 3]);
  assert.equal(await chosenKind(enlarged), 'pixelart');
});

test('fail-safe: pixel art re-saved as RGB at its own size keeps its evidence in its palette\'s worth of colours; anti-aliased artwork of as few colours does not pass', async () => {
  const { bytes: resaved, decoded } = await resavedAsRgb('wide/pixelart/freedoom_titlepic_320x200.png');
  assert.equal(decoded.fewColours, true);
  const stats = await statsOf(resaved);
  assert.ok(stats.aaBlendShare > RULES.pixelArt.maxAaBlendShare && stats.aaBlendShare <= RULES.pixelArt.maxIndexedAaBlendShare, `aaBlendShare ${stats.aaBlendShare}`);
  assert.equal(classifyImage(stats, { ...decoded, fewColours: false }), 'logo', 'without the count, its shading reads as anti-aliasing');
  assert.equal(await chosenKind(resaved), 'pixelart');
  // A 32 px emoji flattened on white holds as few colours, but blends its edges in shades of their own.
  const { bytes: emoji, decoded: emojiDecoded } = await resavedAsRgb('upscale/emoji32/emoji_u1f381.png');
  assert.equal(emojiDecoded.fewColours, true);
  const emojiStats = await statsOf(emoji);
  assert.ok(emojiStats.aaBlendShare > RULES.pixelArt.maxIndexedAaBlendShare, `aaBlendShare ${emojiStats.aaBlendShare}`);
  assert.equal(classifyImage(emojiStats, emojiDecoded), 'logo');
  // The self-check's evidence of a pixel grid widens the palette's allowance for indexed sources
  // only: blends a little over it pass as an indexed source, not as a re-saved one.
  const justOver = { ...emojiStats, aaBlendShare: RULES.pixelArt.maxIndexedAaBlendShare * 1.25 };
  assert.equal(hasPixelGrid(justOver, emojiDecoded), false);
  assert.equal(hasPixelGrid(justOver, { ...emojiDecoded, palette: true, fewColours: false }), true);
});

test('fail-safe: a picture larger than a sprite, admitted by its stored palette alone, gets no margin on its blends: a screenshot saved in a palette is not traced pixel-exact', async () => {
  const bytes = corpusImage('wide/pixelart/freedoom_titlepic_320x200.png');
  const decoded = await decodeImage(bytes, { maxInputPixels: LIMITS.maxInputPixels, maxWorkingPixels: 2_000_000 });
  assert.equal(decoded.palette, true);
  // Blends a little over the palette's allowance (a screenshot's anti-aliased text: 0.27 of its edges).
  const justOver = { ...(await statsOf(bytes)), aaBlendShare: RULES.pixelArt.maxIndexedAaBlendShare * 1.25 };
  assert.equal(hasPixelGrid(justOver, decoded), true, 'a 320 px title picture: the self-check may still trace it as pixel art');
  const screenSized = { ...decoded, originalWidth: 750, originalHeight: 563 };
  assert.equal(hasPixelGrid(justOver, screenSized), false, 'the same at 750 px, larger than a sprite: no pixel grid');
  assert.equal(hasPixelGrid({ ...justOver, aaBlendShare: RULES.pixelArt.maxIndexedAaBlendShare }, screenSized), true, 'within the allowance itself, its palette still admits it');
});

test('fail-safe: a sprite with a translucent drop shadow is pixel art, its shadow traced at its own opacity over nothing', async () => {
  const sprite = await pixelSpriteWithShadow(40, 5);
  const stats = await statsOf(sprite);
  assert.ok(stats.hardAlphaShare < RULES.pixelArt.minHardAlphaShare, `hard alpha ${stats.hardAlphaShare}: the shadow steps 0 → 96 → 255`);
  assert.ok(stats.flatTranslucentShare >= RULES.pixelArt.minFlatTranslucentShare, `flat translucency ${stats.flatTranslucentShare}`);
  const result = await convertImage({ image: sprite, params: DEFAULT_PARAMS }, LIMITS);
  assert.deepEqual(result.chosen, { mode: 'pixelart', curveMode: 'none' });
  assert.match(result.svg, /fill="#000000" fill-opacity="0\.376"/, 'the shadow in its colour and opacity');
  // Nothing is stacked under the shadow: drawn, it is the source exactly.
  assert.ok(result.fidelity >= 0.99, `fidelity ${result.fidelity}`);
  // Anti-aliasing is a rim a pixel wide: its alphas are not flat areas.
  const icon = await statsOf(await antiAliasedIcon(64));
  assert.ok(icon.flatTranslucentShare < RULES.pixelArt.minFlatTranslucentShare, `icon's flat translucency ${icon.flatTranslucentShare}`);
  assert.ok(icon.partialAlphaShare > 0);
});

test('fail-safe: a small glyph on white is never ink; a colour glyph keeps its colour', async () => {
  const heart = await drawn('<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48"><rect width="48" height="48" fill="#fff"/><path d="M24 42 6 24a10 10 0 0 1 18-14 10 10 0 0 1 18 14z" fill="#e11d48"/></svg>');
  const result = await convertImage({ image: heart, params: DEFAULT_PARAMS }, LIMITS);
  assert.equal(result.chosen.mode, 'logo');
  assert.match(result.svg, /fill="#e[01][0-9a-f]{4}"/i);
});

test('fail-safe: a dense palette map saved without its palette is still flat colour: few colours at its own size decide, not the blended sample', async () => {
  const { bytes: flattened, decoded } = await resavedAsRgb('edge/palette_zune_2048x2253.png');
  assert.equal(decoded.palette, false);
  assert.equal(decoded.fewColours, true, 'the rows read at full size hold a palette\'s worth of colours');
  const sample = await fitToPixels(decoded, CLASSIFY_PIXELS);
  const stats = measureImage(sample.rgba, sample.width, sample.height);
  assert.ok(stats.distinctColours > 10_000, `the reduced sample blends them into ${stats.distinctColours}`);
  assert.equal(classifyImage(stats, { ...decoded, fewColours: false }), 'photo', 'without the count, its statistics read as a photograph');
  assert.equal(await chosenKind(flattened), 'logo');
  // A photograph saved as PNG never has so few colours, at its own size or in its probed rows.
  const photo = await sharp(corpusImage('photo/kodim23.png')).png().toBuffer();
  assert.equal((await decodeImage(photo, { maxInputPixels: LIMITS.maxInputPixels, maxWorkingPixels: 2_000_000 })).fewColours, undefined);
  const enlargedPhoto = await sharp(photo).resize(2400).png().toBuffer();
  assert.equal((await decodeImage(enlargedPhoto, { maxInputPixels: LIMITS.maxInputPixels, maxWorkingPixels: 2_000_000 })).fewColours, undefined);
});

test('fail-safe: a grey sprite at an icon\'s size is pixel art; a grey drawing reduced to that size is not', async () => {
  // A game's sprite drawn in greys on black, 64 px (Meritous's sprites are so): a scan is never
  // that small, so grey is no evidence against pixel art here.
  const sprite = await sharp(await pixelSprite(64, 11)).flatten({ background: '#000000' }).greyscale().png().toBuffer();
  const spriteStats = await statsOf(sprite);
  assert.ok(spriteStats.meanChroma < 4, 'grey');
  assert.equal(await chosenKind(sprite), 'pixelart');
  // Any grey image holds at most 256 colours, so that earns it no allowance for anti-aliasing:
  // the corpus's line drawing halved (81 × 108, 246 greys, 0.14 of its edges blended) is not pixel art.
  const flower = corpusImage('sketch/imagetracerjs_flower_lineart.png');
  const halved = await sharp(flower).resize(81).png().toBuffer();
  const flowerStats = await statsOf(halved);
  assert.ok(flowerStats.distinctColours <= FEW_COLOURS && flowerStats.aaBlendShare > RULES.pixelArt.maxAaBlendShare, `${flowerStats.distinctColours} colours, blends ${flowerStats.aaBlendShare}`);
  assert.notEqual(await chosenKind(halved), 'pixelart');
  // Larger than an icon, a grey image is a scan (a 1-bit page, a halftone), whatever its pixels.
  const large = await sharp(await pixelSprite(200, 11)).flatten({ background: '#000000' }).greyscale().png().toBuffer();
  assert.notEqual(await chosenKind(large), 'pixelart');
});

test('fail-safe: a photograph or painted texture stored in a 256-colour palette is not pixel art — it has no runs of one colour; a title screen shading with its palette is', async () => {
  // A photographed flower head cut out on transparency for a game: slow colour and coarse grain,
  // hard alpha, stored as an indexed PNG of 256 colours. Its grain blends few of its edges (0.12),
  // so the palette's allowance for shading took it for pixel art.
  const width = 140;
  const height = 110;
  const random = randomSequence(9);
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = Math.hypot((x - 70) / 62, (y - 55) / 48) < 1;
      if (!inside) continue;
      const petal = 0.5 + 0.5 * Math.sin(x / 25 + Math.cos(y / 17) * 3);
      const grain = random() * 160 - 80;
      rgba.set([Math.min(255, 200 + 40 * petal + grain), Math.max(0, 60 + 120 * petal + grain), Math.max(0, 20 + 30 * (1 - petal) + grain), 255], (y * width + x) * 4);
    }
  }
  const indexed = await sharp(rgba, { raw: { width, height, channels: 4 } }).png({ palette: true, colours: 256 }).toBuffer();
  assert.equal((await sharp(indexed).metadata()).isPalette, true);
  const { first } = await firstDecode(indexed, LIMITS.maxInputPixels);
  const stats = await statisticsOf(first);
  assert.notEqual(classifyImage(stats, first), 'pixelart');
  assert.equal(hasPixelGrid(stats, first), false, 'no pixel grid either, so the self-check does not trace it pixel-exact');
  assert.ok(stats.equalOffGroundShare < RULES.pixelArt.minEqualForPaletteShading, `equal neighbours ${stats.equalOffGroundShare}`);
  const result = await convertImage({ image: indexed, params: DEFAULT_PARAMS }, LIMITS);
  assert.notEqual(result.chosen.curveMode, 'none');

  // The tune part's title screen: 256 colours shading in areas of one colour.
  const title = await firstDecode(corpusImage('wide/pixelart/freedoom_titlepic_320x200.png'), LIMITS.maxInputPixels);
  const titleStats = await statisticsOf(title.first);
  assert.ok(titleStats.equalOffGroundShare >= RULES.pixelArt.minEqualForPaletteShading);
  assert.equal(classifyImage(titleStats, title.first), 'pixelart');
});
