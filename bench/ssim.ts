// Structural similarity (Wang et al. 2004) on luma, with the standard 11×11 Gaussian
// window (σ = 1.5) and constants K1 = 0.01, K2 = 0.03 for 8-bit data.

export interface GrayImage {
  data: Float64Array;
  width: number;
  height: number;
}

/** Luma (BT.601) of an RGBA or RGB buffer. */
export function toGray(pixels: Uint8Array, width: number, height: number, channels: number): GrayImage {
  const data = new Float64Array(width * height);
  for (let i = 0; i < width * height; i++) {
    const o = i * channels;
    data[i] = 0.299 * (pixels[o] as number) + 0.587 * (pixels[o + 1] as number) + 0.114 * (pixels[o + 2] as number);
  }
  return { data, width, height };
}

function gaussianKernel(radius: number, sigma: number): Float64Array {
  const kernel = new Float64Array(radius * 2 + 1);
  let sum = 0;
  for (let i = -radius; i <= radius; i++) {
    const value = Math.exp(-(i * i) / (2 * sigma * sigma));
    kernel[i + radius] = value;
    sum += value;
  }
  return kernel.map((value) => value / sum);
}

/** Separable Gaussian blur, 'valid' region only (output shrinks by 2·radius per axis). */
function blurValid(source: Float64Array, width: number, height: number, kernel: Float64Array): Float64Array {
  const radius = (kernel.length - 1) / 2;
  const outWidth = width - 2 * radius;
  const outHeight = height - 2 * radius;
  const horizontal = new Float64Array(outWidth * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < outWidth; x++) {
      let sum = 0;
      for (let k = 0; k < kernel.length; k++) sum += (kernel[k] as number) * (source[y * width + x + k] as number);
      horizontal[y * outWidth + x] = sum;
    }
  }
  const out = new Float64Array(outWidth * outHeight);
  for (let y = 0; y < outHeight; y++) {
    for (let x = 0; x < outWidth; x++) {
      let sum = 0;
      for (let k = 0; k < kernel.length; k++) sum += (kernel[k] as number) * (horizontal[(y + k) * outWidth + x] as number);
      out[y * outWidth + x] = sum;
    }
  }
  return out;
}

/** Per-pixel SSIM over the 'valid' region (each side shorter by the window), and its mean. */
export interface SsimMap {
  data: Float64Array;
  width: number;
  height: number;
  mean: number;
}

/**
 * SSIM of two equally sized grey images, per window position. Images smaller than the window are
 * compared with a smaller one (down to a single pixel).
 */
export function ssimMap(a: GrayImage, b: GrayImage): SsimMap {
  if (a.width !== b.width || a.height !== b.height) throw new Error('ssim: images differ in size');
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  const radius = Math.min(5, Math.floor((Math.min(a.width, a.height) - 1) / 2));
  const kernel = gaussianKernel(radius, radius === 5 ? 1.5 : Math.max(0.5, radius / 3));
  const n = a.width * a.height;
  const aa = new Float64Array(n);
  const bb = new Float64Array(n);
  const ab = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = a.data[i] as number;
    const y = b.data[i] as number;
    aa[i] = x * x;
    bb[i] = y * y;
    ab[i] = x * y;
  }
  const muA = blurValid(a.data, a.width, a.height, kernel);
  const muB = blurValid(b.data, a.width, a.height, kernel);
  const sAA = blurValid(aa, a.width, a.height, kernel);
  const sBB = blurValid(bb, a.width, a.height, kernel);
  const sAB = blurValid(ab, a.width, a.height, kernel);
  const data = new Float64Array(muA.length);
  let total = 0;
  for (let i = 0; i < muA.length; i++) {
    const ma = muA[i] as number;
    const mb = muB[i] as number;
    const varA = (sAA[i] as number) - ma * ma;
    const varB = (sBB[i] as number) - mb * mb;
    const cov = (sAB[i] as number) - ma * mb;
    const value = ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (varA + varB + c2));
    data[i] = value;
    total += value;
  }
  return { data, width: a.width - 2 * radius, height: a.height - 2 * radius, mean: total / muA.length };
}

/** Mean SSIM of two equally sized grey images. */
export function ssim(a: GrayImage, b: GrayImage): number {
  return ssimMap(a, b).mean;
}
