// Images made for the classification and line-art tests: one for each kind of picture a rule is
// about, drawn here (resvg for anti-aliased shapes and strokes, sharp for JPEG) so that each test
// shows what it depends on. For the segmentation and paint tests: raw pictures drawn by coverage,
// a predictable palette, and segmentations drawn by hand.

import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { addPixel, frameOf, MOMENT_STRIDE } from '../../src/engine/segment/moments.ts';
import type { Segmentation } from '../../src/engine/segment/segment.ts';
import { premultiply } from '../../src/engine/segment/silhouette.ts';

/** A deterministic pseudo-random sequence in [0, 1) (mulberry32). */
export function randomSequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** RGBA pixels (not premultiplied) of an SVG document, rendered at its own size on transparency. */
export async function renderSvg(svg: string): Promise<{ rgba: Buffer; width: number; height: number }> {
  // The PNG, not the renderer's premultiplied pixels: partly transparent edges keep their colour.
  const png = new Resvg(svg, { font: { loadSystemFonts: false } }).render().asPng();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgba: data, width: info.width, height: info.height };
}

/** Lines of joined loops and strokes, like handwriting, as SVG path data inside the box. */
export function handwritingPath(box: { x: number; y: number; width: number; height: number }, seed: number, lineHeight = 40): string {
  const random = randomSequence(seed);
  const parts: string[] = [];
  for (let baseline = box.y + lineHeight; baseline < box.y + box.height - 8; baseline += lineHeight) {
    let x = box.x + random() * 20;
    while (x < box.x + box.width - 60) {
      const letters = 3 + Math.floor(random() * 6);
      parts.push(`M${x.toFixed(1)} ${baseline}`);
      for (let letter = 0; letter < letters; letter++) {
        const width = 8 + random() * 8;
        const rise = (0.35 + random() * (random() < 0.25 ? 0.6 : 0.2)) * lineHeight;
        parts.push(
          `c${(width * 0.2).toFixed(1)} ${(-rise).toFixed(1)} ${(width * 0.9).toFixed(1)} ${(-rise).toFixed(1)} ${width.toFixed(1)} 0`,
        );
        x += width;
      }
      x += 14 + random() * 12;
    }
  }
  return parts.join('');
}

/**
 * A handwritten page: ink strokes on tinted paper under light that falls off towards one corner,
 * with a faint paper grain, encoded as JPEG.
 */
export async function handwrittenLetter(options: {
  width: number;
  height: number;
  paper: [number, number, number];
  ink: [number, number, number];
  /** Brightness in the darkest corner, relative to the lightest (1 = even light). */
  darkestLight: number;
  seed: number;
}): Promise<Buffer> {
  const { width, height, paper, ink, darkestLight, seed } = options;
  const strokes = await renderSvg(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<path d="${handwritingPath({ x: 20, y: 10, width: width - 40, height: height - 20 }, seed)}" fill="none" stroke="#000" stroke-width="2.6" stroke-linecap="round"/></svg>`,
  );
  const random = randomSequence(seed + 1);
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      // Ink coverage from the rendered strokes' alpha.
      const coverage = (strokes.rgba[p * 4 + 3] as number) / 255;
      const light = 1 - (1 - darkestLight) * ((x / width) * 0.6 + (y / height) * 0.4);
      const grain = (random() - 0.5) * 6;
      for (let c = 0; c < 3; c++) {
        const paperHere = (paper[c] as number) * light + grain;
        rgb[p * 3 + c] = Math.max(0, Math.min(255, Math.round(paperHere + ((ink[c] as number) - paperHere) * coverage)));
      }
    }
  }
  return sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg({ quality: 75 }).toBuffer();
}

/**
 * A greyscale photograph's statistics: a shaded head and shoulders in front of a lit wall, soft
 * edges and tones everywhere between dark and light, sensor noise; JPEG.
 */
export async function greyscalePhoto(width: number, height: number, seed: number): Promise<Buffer> {
  const random = randomSequence(seed);
  const grey = Buffer.alloc(width * height);
  const smoothstep = (edge: number, softness: number, value: number) => 1 / (1 + Math.exp(-(value - edge) / softness));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      // A wall lit from the left, a dark coat over the lower half, a head lit from the side.
      const wall = 200 - 90 * u + 20 * Math.sin(v * 4);
      const coat = smoothstep(0.62, 0.02, v + 0.25 * Math.abs(u - 0.5));
      const headDistance = Math.hypot((u - 0.5) / 0.16, (v - 0.38) / 0.21);
      const head = 1 - smoothstep(1, 0.06, headDistance);
      const faceShade = 90 + 110 * Math.max(0, Math.cos((u - 0.42) * 5)) * (1 - 0.4 * v);
      const coatShade = 25 + 45 * Math.max(0, Math.sin(u * 9 + v * 3));
      let value = wall * (1 - coat) + coatShade * coat;
      value = value * (1 - head) + faceShade * head + (random() - 0.5) * 8;
      grey[y * width + x] = Math.max(0, Math.min(255, Math.round(value)));
    }
  }
  return sharp(grey, { raw: { width, height, channels: 1 } }).jpeg({ quality: 85 }).toBuffer();
}

/** A star a night-sky fixture holds: centre (pixels), Gaussian radius and brightness over the sky. */
export interface FixtureStar {
  x: number;
  y: number;
  sigma: number;
  peak: number;
}

/**
 * A night sky over dark hills as a JPEG: a blue sky lightening to the horizon with a little grain,
 * and stars of Gaussian light a pixel or two across at the positions returned.
 */
export async function nightSky(width: number, height: number, seed: number, count: number): Promise<{ jpeg: Buffer; stars: FixtureStar[]; horizon: number }> {
  const random = randomSequence(seed);
  const horizon = Math.round(height * 0.75);
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const hill = horizon + 40 * Math.sin(x / 150);
      const t = y / horizon;
      const grain = (random() - 0.5) * 6;
      const [r, g, b] = y < hill ? [10 + 25 * t, 14 + 35 * t, 40 + 50 * t] : [30, 24, 20];
      rgb[i] = Math.round(r + grain);
      rgb[i + 1] = Math.round(g + grain);
      rgb[i + 2] = Math.round(b + grain);
    }
  }
  const stars: FixtureStar[] = [];
  for (let s = 0; s < count; s++) {
    const star = { x: 8 + random() * (width - 16), y: 8 + random() * (horizon - 100), sigma: 0.6 + random() * 0.5, peak: 140 + random() * 100 };
    stars.push(star);
    for (let y = Math.floor(star.y - 5); y <= star.y + 5; y++) {
      for (let x = Math.floor(star.x - 5); x <= star.x + 5; x++) {
        const light = star.peak * Math.exp(-((x + 0.5 - star.x) ** 2 + (y + 0.5 - star.y) ** 2) / (2 * star.sigma ** 2));
        const i = (y * width + x) * 3;
        for (let c = 0; c < 3; c++) rgb[i + c] = Math.min(255, Math.round((rgb[i + c] as number) + light));
      }
    }
  }
  return { jpeg: await sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer(), stars, horizon };
}

/** An emoji drawn in gradients: a shaded face with eyes and a smile, on transparency. */
export async function gradientEmoji(size: number): Promise<Buffer> {
  const { rgba, width, height } = await renderSvg(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 64 64">` +
      '<defs><radialGradient id="face" cx="0.4" cy="0.35" r="0.7"><stop offset="0" stop-color="#fff3a0"/><stop offset="0.6" stop-color="#fcc21b"/><stop offset="1" stop-color="#e88a0c"/></radialGradient></defs>' +
      '<circle cx="32" cy="32" r="29" fill="url(#face)"/>' +
      '<ellipse cx="22" cy="26" rx="4" ry="6" fill="#4a2c0a"/><ellipse cx="42" cy="26" rx="4" ry="6" fill="#4a2c0a"/>' +
      '<path d="M17 38Q32 54 47 38" fill="none" stroke="#4a2c0a" stroke-width="4" stroke-linecap="round"/></svg>',
  );
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/**
 * A sprite drawn pixel by pixel: a handful of colours in blocks of one to three pixels, hard
 * edges, binary alpha around it. Enlarged `scale` times by repeating pixels.
 */
export async function pixelSprite(size: number, seed: number, scale = 1): Promise<Buffer> {
  const random = randomSequence(seed);
  const palette = [
    [34, 32, 52],
    [89, 86, 82],
    [172, 50, 50],
    [223, 113, 38],
    [251, 242, 54],
  ] as const;
  const rgba = Buffer.alloc(size * size * 4);
  const centre = size / 2;
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      if (Math.hypot(x + 0.5 - centre, y + 0.5 - centre) > size * 0.45) continue;
      const [r, g, b] = palette[Math.floor(random() * palette.length)] as readonly [number, number, number];
      // Runs of one to three pixels of a colour along the row.
      const run = 1 + Math.floor(random() * 3);
      for (let k = 0; k < run && x + k < size; k++) rgba.set([r, g, b, 255], (y * size + x + k) * 4);
      x += run - 1;
    }
  }
  const image = sharp(rgba, { raw: { width: size, height: size, channels: 4 } });
  return (scale === 1 ? image : image.resize(size * scale, size * scale, { kernel: 'nearest' })).png().toBuffer();
}

/** pixelSprite with a drop shadow: its silhouette 2 px down and right, black at alpha 96, under it. */
export async function pixelSpriteWithShadow(size: number, seed: number): Promise<Buffer> {
  const sprite = await sharp(await pixelSprite(size, seed)).raw().toBuffer();
  const side = size + 3;
  const rgba = Buffer.alloc(side * side * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if ((sprite[(y * size + x) * 4 + 3] as number) > 0) rgba.set([0, 0, 0, 96], ((y + 2) * side + x + 2) * 4);
  }
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      if ((sprite[i + 3] as number) > 0) rgba.set(sprite.subarray(i, i + 4), (y * side + x) * 4);
    }
  }
  return sharp(rgba, { raw: { width: side, height: side, channels: 4 } }).png().toBuffer();
}

/** An anti-aliased icon: a rounded square with a gradient and a ring, on transparency. */
export async function antiAliasedIcon(size: number): Promise<Buffer> {
  const { rgba, width, height } = await renderSvg(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 64 64">` +
      '<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#5da9f0"/><stop offset="1" stop-color="#1d5fa8"/></linearGradient></defs>' +
      '<rect x="5" y="5" width="54" height="54" rx="12" fill="url(#g)"/>' +
      '<circle cx="32" cy="30" r="14" fill="none" stroke="#ffffff" stroke-width="5"/>' +
      '<path d="M42 40L53 51" stroke="#ffcf33" stroke-width="6" stroke-linecap="round"/></svg>',
  );
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/** Flat-colour vector artwork with a sky gradient (a skyline), saved as JPEG as illustrations often are. */
export async function flatIllustrationJpeg(width: number, height: number, seed: number): Promise<Buffer> {
  const random = randomSequence(seed);
  const buildings: string[] = [];
  const colours = ['#c0504d', '#9b3d5a', '#e8a25c', '#7a2f4f', '#f2c36b'];
  for (let x = 0; x < width; ) {
    const w = 40 + random() * 70;
    const h = height * (0.3 + random() * 0.5);
    buildings.push(`<rect x="${x.toFixed(0)}" y="${(height - h).toFixed(0)}" width="${w.toFixed(0)}" height="${h.toFixed(0)}" fill="${colours[Math.floor(random() * colours.length)]}"/>`);
    for (let wy = height - h + 12; wy < height - 10; wy += 18) {
      buildings.push(`<rect x="${(x + 8).toFixed(0)}" y="${wy.toFixed(0)}" width="${(w - 16).toFixed(0)}" height="7" fill="#fbe3a8"/>`);
    }
    x += w + 4;
  }
  const { rgba } = await renderSvg(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      '<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#6d5c9c"/><stop offset="1" stop-color="#f6b38a"/></linearGradient></defs>' +
      `<rect width="${width}" height="${height}" fill="url(#sky)"/><circle cx="${width * 0.7}" cy="${height * 0.45}" r="${height * 0.15}" fill="#fde7b0"/>${buildings.join('')}</svg>`,
  );
  return sharp(rgba, { raw: { width, height, channels: 4 } }).flatten().jpeg({ quality: 80 }).toBuffer();
}

/** Black line drawing on transparency, anti-aliased: ink without paper. */
export async function inkOnTransparency(width: number, height: number, seed: number): Promise<Buffer> {
  const { rgba } = await renderSvg(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<path d="${handwritingPath({ x: 10, y: 5, width: width - 20, height: height - 10 }, seed, 36)}" fill="none" stroke="#111" stroke-width="3" stroke-linecap="round"/></svg>`,
  );
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/** A handwritten sheet lying on a lighter mount, as archives photograph letters: two papers and ink. */
export async function letterOnMount(seed: number): Promise<{ image: Buffer; sheet: { x: number; y: number; width: number; height: number } }> {
  const width = 600;
  const height = 760;
  const sheet = { x: 150, y: 160, width: 300, height: 440 };
  const { rgba: strokes } = await renderSvg(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<path d="${handwritingPath({ x: sheet.x + 15, y: sheet.y + 10, width: sheet.width - 30, height: sheet.height - 20 }, seed, 32)}" fill="none" stroke="#000" stroke-width="2.4" stroke-linecap="round"/></svg>`,
  );
  const random = randomSequence(seed + 1);
  const grey = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const onSheet = x >= sheet.x && x < sheet.x + sheet.width && y >= sheet.y && y < sheet.y + sheet.height;
      const paper = (onSheet ? 112 : 196) + (random() - 0.5) * 8;
      const coverage = (strokes[(y * width + x) * 4 + 3] as number) / 255;
      grey[y * width + x] = Math.round(paper + (16 - paper) * coverage);
    }
  }
  return { image: await sharp(grey, { raw: { width, height, channels: 1 } }).jpeg({ quality: 80 }).toBuffer(), sheet };
}

/** A straight RGBA colour, 0–255 per channel. */
export type RgbaColour = [number, number, number, number];

/**
 * Raw RGBA (straight colour) of a picture given as the colour at each point, null where there is
 * nothing: each pixel averages `samples` × `samples` points, so edges are anti-aliased by their
 * exact coverage, as a renderer draws them.
 */
export function drawnRgba(width: number, height: number, paint: (x: number, y: number) => RgbaColour | null, samples = 8): Buffer {
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sum = [0, 0, 0, 0];
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const colour = paint(x + (sx + 0.5) / samples, y + (sy + 0.5) / samples);
          if (!colour) continue;
          const a = colour[3] / 255;
          for (let c = 0; c < 3; c++) sum[c] = (sum[c] as number) + (colour[c] as number) * a;
          sum[3] = (sum[3] as number) + a;
        }
      }
      const i = (y * width + x) * 4;
      const covered = sum[3] as number;
      if (covered > 0) for (let c = 0; c < 3; c++) rgba[i + c] = Math.round((sum[c] as number) / covered);
      rgba[i + 3] = Math.round((covered / (samples * samples)) * 255);
    }
  }
  return rgba;
}

/**
 * The first partition a palette gives, made predictable: each channel, alpha included, rounded to
 * a multiple of `step` (a palette keeps partly transparent colours as colours of their own).
 */
export function posterised(rgba: Buffer, step: number): Buffer {
  const out = Buffer.alloc(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) {
    const alpha = Math.min(255, Math.round((rgba[i + 3] as number) / step) * step);
    if (alpha === 0) continue;
    for (let c = 0; c < 3; c++) out[i + c] = Math.min(255, Math.round((rgba[i + c] as number) / step) * step);
    out[i + 3] = alpha;
  }
  return out;
}

/**
 * A segmentation drawn by hand: each pixel's region (-1 for transparency) and straight colour,
 * with the moment sums the segmentation would keep, for the stages that read one (paints, the
 * finer grid) without going through segmentArtwork.
 */
export function segmentationOf(width: number, height: number, paint: (x: number, y: number) => [number, RgbaColour]): Segmentation {
  const labels = new Int32Array(width * height);
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [label, colour] = paint(x, y);
      labels[y * width + x] = label;
      rgba.set(colour.map((value) => Math.max(0, Math.min(255, Math.round(value)))), (y * width + x) * 4);
    }
  }
  const count = Math.max(-1, ...labels) + 1;
  const premultiplied = premultiply(rgba);
  const frame = frameOf(width, height);
  const sums = new Float64Array(count * MOMENT_STRIDE);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as number;
    if (label < 0) continue;
    const p = i * 4;
    const [r, g, b, a] = [0, 1, 2, 3].map((c) => premultiplied[p + c] as number) as [number, number, number, number];
    addPixel(sums, label * MOMENT_STRIDE, frame, i % width, Math.floor(i / width), r, g, b, a);
  }
  return { width, height, labels, count, sums, frame, premultiplied };
}

/**
 * A game's sheet of sprites cut out on transparency (6 rows of 8, 28 px each), every sprite
 * shaded in its own 14 colours laid in runs: hard alpha and hard colour steps, in far more
 * colours than a palette (some 670).
 */
export async function manyColourSpriteSheet(seed: number): Promise<Buffer> {
  const random = randomSequence(seed);
  const cell = 28;
  const columns = 8;
  const rows = 6;
  const width = cell * columns;
  const height = cell * rows;
  const rgba = Buffer.alloc(width * height * 4);
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      const colours = Array.from({ length: 14 }, () => [Math.floor(random() * 256), Math.floor(random() * 256), Math.floor(random() * 256)] as const);
      for (let y = 0; y < cell; y++) {
        for (let x = 0; x < cell; x++) {
          if (Math.hypot(x + 0.5 - cell / 2, y + 0.5 - cell / 2) > cell * 0.42) continue;
          const [r, g, b] = colours[Math.floor(random() * colours.length)] as readonly [number, number, number];
          const run = 1 + Math.floor(random() * 3);
          for (let k = 0; k < run && x + k < cell; k++) rgba.set([r, g, b, 255], ((row * cell + y) * width + column * cell + x + k) * 4);
          x += run - 1;
        }
      }
    }
  }
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/**
 * A cartoon cut out on transparency with hard edges (binary alpha, an aliased black outline) but
 * shaded in a smooth radial gradient: hundreds of colours in soft steps, not pixel art.
 */
export async function hardEdgedGradientCartoon(): Promise<Buffer> {
  const width = 220;
  const height = 160;
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = (x + 0.5 - width / 2) / (width * 0.45);
      const v = (y + 0.5 - height / 2) / (height * 0.45);
      const d = Math.hypot(u, v);
      if (d > 1) continue;
      const i = (y * width + x) * 4;
      if (d > 0.95) {
        rgba.set([0, 0, 0, 255], i);
        continue;
      }
      const light = Math.hypot(u + 0.4, v + 0.4) / 1.6;
      rgba.set([Math.round(200 + 55 * (1 - Math.abs(v))), Math.round(230 - 150 * light), Math.round(40 + 30 * (u + 1)), 255], i);
    }
  }
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}
