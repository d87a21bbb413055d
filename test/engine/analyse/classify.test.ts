// One image per rule of `mode: auto` (docs/parameters.md, "How auto decides"): each test checks the
// kind the whole conversion picks, and the statistic the rule turns on, so a pass is not luck.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { blockScale, classifyImage, measureImage, RULES, type ImageStats } from '../../../src/engine/analyse/classify.ts';
import { convertImage } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { antiAliasedIcon, flatIllustrationJpeg, gradientEmoji, greyscalePhoto, handwrittenLetter, letterOnMount, pixelSprite } from '../fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };

async function chosenKind(image: Buffer): Promise<string> {
  return (await convertImage({ image, params: DEFAULT_PARAMS }, LIMITS)).chosen.mode;
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
