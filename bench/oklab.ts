// Oklab, Björn Ottosson's perceptual colour space ("A perceptual color space for image
// processing", 2020, https://bottosson.github.io/posts/oklab/): sRGB is linearised with the sRGB
// transfer function (IEC 61966-2-1), taken to cone-like LMS by his matrix M1, cube-rooted and
// taken to L, a, b by his matrix M2. The Euclidean distance in Oklab (ΔE_ok) is a colour
// difference in which equal steps look about equally large; a step of 0.02 is about the smallest
// a person notices side by side.

/** sRGB component (0–255, fractional allowed) to linear light (0–1). */
export function srgbToLinear(value: number): number {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Linear sRGB (0–1 each) to Oklab [L, a, b], with Ottosson's published matrices. */
export function linearSrgbToOklab(r: number, g: number, b: number): [number, number, number] {
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

/** sRGB (0–255 each) to Oklab [L, a, b]. */
export function srgbToOklab(r: number, g: number, b: number): [number, number, number] {
  return linearSrgbToOklab(srgbToLinear(r), srgbToLinear(g), srgbToLinear(b));
}
