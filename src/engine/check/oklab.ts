// Oklab (Björn Ottosson, "A perceptual color space for image processing", 2020): a colour
// space where Euclidean distance follows perceived difference, for comparing a rendered result
// with its source. L runs 0–1; a just-noticeable difference is about 0.02.

/** sRGB 8-bit → linear light, as a table. */
const LINEAR = new Float64Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  LINEAR[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Linear sRGB (0–1) → Oklab, written into `out` at `at`. */
export function linearToOklab(r: number, g: number, b: number, out: Float32Array, at: number): void {
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  out[at] = 0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s;
  out[at + 1] = 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s;
  out[at + 2] = 0.0259040371 * l + 0.7827717662 * m - 0.808675881 * s;
}

/** Euclidean distance between two Oklab colours (three values each, from index 0). */
export function oklabDistance(a: Float32Array, b: Float32Array): number {
  return Math.hypot((a[0] as number) - (b[0] as number), (a[1] as number) - (b[1] as number), (a[2] as number) - (b[2] as number));
}

/** Entries of oklabOver's colour cache. */
const CACHE_SIZE = 4096;

/** 8-bit sRGB → Oklab. */
export function srgbToOklab(r: number, g: number, b: number, out: Float32Array, at: number): void {
  linearToOklab(LINEAR[r] as number, LINEAR[g] as number, LINEAR[b] as number, out, at);
}

/**
 * Oklab of every pixel of straight (not premultiplied) RGBA composited over a background grey
 * level (0–1, in linear light: 0 black, 1 white). Compositing happens in linear light, as a
 * renderer blends, so a half-covered edge pixel reads as the colour a person sees there.
 * `opaqueFrom`, the same image over another ground, gives its opaque pixels ready-made.
 */
export function oklabOver(rgba: Uint8Array, background: number, opaqueFrom?: Float32Array): Float32Array {
  const pixels = rgba.length / 4;
  const out = new Float32Array(pixels * 3);
  // Opaque colours recur (artwork has few): a small direct-mapped cache spares their cube roots.
  const cachedKey = new Int32Array(CACHE_SIZE).fill(-1);
  const cached = new Float32Array(CACHE_SIZE * 3);
  const ground = new Float32Array(3);
  linearToOklab(background, background, background, ground, 0);
  for (let p = 0; p < pixels; p++) {
    const i = p * 4;
    if (rgba[i + 3] === 0) {
      out[p * 3] = ground[0] as number;
      out[p * 3 + 1] = ground[1] as number;
      out[p * 3 + 2] = ground[2] as number;
      continue;
    }
    if (rgba[i + 3] === 255) {
      if (opaqueFrom) {
        out[p * 3] = opaqueFrom[p * 3] as number;
        out[p * 3 + 1] = opaqueFrom[p * 3 + 1] as number;
        out[p * 3 + 2] = opaqueFrom[p * 3 + 2] as number;
        continue;
      }
      const key = ((rgba[i] as number) << 16) | ((rgba[i + 1] as number) << 8) | (rgba[i + 2] as number);
      const slot = (Math.imul(key, 0x9e3779b1) >>> 0) % CACHE_SIZE;
      if (cachedKey[slot] !== key) {
        srgbToOklab(rgba[i] as number, rgba[i + 1] as number, rgba[i + 2] as number, cached, slot * 3);
        cachedKey[slot] = key;
      }
      out[p * 3] = cached[slot * 3] as number;
      out[p * 3 + 1] = cached[slot * 3 + 1] as number;
      out[p * 3 + 2] = cached[slot * 3 + 2] as number;
      continue;
    }
    const alpha = (rgba[i + 3] as number) / 255;
    const rest = (1 - alpha) * background;
    linearToOklab(
      (LINEAR[rgba[i] as number] as number) * alpha + rest,
      (LINEAR[rgba[i + 1] as number] as number) * alpha + rest,
      (LINEAR[rgba[i + 2] as number] as number) * alpha + rest,
      out,
      p * 3,
    );
  }
  return out;
}
