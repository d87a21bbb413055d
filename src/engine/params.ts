// The `params` object of the contract (source table 2.3, the output options and the print and
// cut options): members, types, ranges and defaults. Validation is strict: unknown members,
// wrong types and out-of-range values are refused with a message that names the member and
// what it accepts. A `preset` fills in the print and cut members it names that were not given.

import type { Unit } from './write/page.ts';

export type Mode = 'auto' | 'photo' | 'sketch';
export type CurveMode = 'auto' | 'polygon' | 'spline' | 'none';
/** Output options beyond the source's table (see the contract's "Output formats and output options"). */
export type Stacking = 'stacked' | 'cutouts';
export type GroupBy = 'none' | 'color';
export type Preset = 'vinyl' | 'laser' | 'plotter' | 'screenprint' | 'embroidery';
export type { Unit } from './write/page.ts';

export interface TraceParams {
  mode: Mode;
  colorPrecision: number;
  layerDifference: number;
  cornerThreshold: number;
  pathPrecision: number;
  filterSpeckle: number;
  segmentLength: number;
  spliceThreshold: number;
  inputEnhance: boolean;
  curveMode: CurveMode;
  stacking: Stacking;
  groupBy: GroupBy;
  /** Every fill is one of these colours (`#rrggbb`, lower case, each once); none when absent. */
  palette?: string[];
  /** At most this many distinct fills; no limit when absent. */
  maxColors?: number;
  /** Ink traced as strokes along the middle of its lines. */
  centerline: boolean;
  /** The unit of the document's physical size and of `minFeature`. */
  unit: Unit;
  /** Pixels per inch for `unit`. */
  dpi: number;
  /** Shapes and holes narrower than this (in `unit`) are removed or merged into their neighbour. */
  minFeature: number;
  preset?: Preset;
}

/** How a member is checked and described; members without `default` are absent unless given. */
export type MemberSpec =
  | { kind: 'integer'; min: number; max: number; default?: number }
  | { kind: 'number'; min: number; default: number }
  | { kind: 'boolean'; default: boolean }
  | { kind: 'enum'; values: readonly string[]; default?: string }
  | { kind: 'colours'; minItems: number; maxItems: number };

export const PARAM_SPECS: Record<keyof TraceParams, MemberSpec> = {
  mode: { kind: 'enum', values: ['auto', 'photo', 'sketch'], default: 'auto' },
  colorPrecision: { kind: 'integer', min: 1, max: 8, default: 6 },
  layerDifference: { kind: 'integer', min: 0, max: 5, default: 1 },
  cornerThreshold: { kind: 'integer', min: 0, max: 180, default: 60 },
  pathPrecision: { kind: 'integer', min: 1, max: 10, default: 4 },
  filterSpeckle: { kind: 'integer', min: 0, max: 20, default: 0 },
  segmentLength: { kind: 'integer', min: 1, max: 20, default: 10 },
  spliceThreshold: { kind: 'integer', min: 1, max: 90, default: 45 },
  inputEnhance: { kind: 'boolean', default: false },
  curveMode: { kind: 'enum', values: ['auto', 'polygon', 'spline', 'none'], default: 'auto' },
  stacking: { kind: 'enum', values: ['stacked', 'cutouts'], default: 'stacked' },
  groupBy: { kind: 'enum', values: ['none', 'color'], default: 'none' },
  palette: { kind: 'colours', minItems: 1, maxItems: 256 },
  maxColors: { kind: 'integer', min: 1, max: 256 },
  centerline: { kind: 'boolean', default: false },
  unit: { kind: 'enum', values: ['px', 'mm', 'in'], default: 'px' },
  dpi: { kind: 'integer', min: 72, max: 2400, default: 96 },
  minFeature: { kind: 'number', min: 0, default: 0 },
  preset: { kind: 'enum', values: ['vinyl', 'laser', 'plotter', 'screenprint', 'embroidery'] },
};

export const DEFAULT_PARAMS: TraceParams = Object.fromEntries(
  Object.entries(PARAM_SPECS)
    .filter(([, spec]) => spec.kind !== 'colours' && spec.default !== undefined)
    .map(([name, spec]) => [name, (spec as { default: unknown }).default]),
) as unknown as TraceParams;

/**
 * What each preset sets, unless the request gives the member itself. Why each value: see
 * docs/parameters.md, "Presets".
 */
export const PRESETS: Record<Preset, Partial<TraceParams>> = {
  vinyl: { stacking: 'cutouts', groupBy: 'color', unit: 'mm', minFeature: 0.5, maxColors: 8 },
  laser: { stacking: 'cutouts', groupBy: 'color', unit: 'mm', minFeature: 0.2, maxColors: 4 },
  plotter: { centerline: true, groupBy: 'color', unit: 'mm', minFeature: 0.3, maxColors: 8 },
  screenprint: { stacking: 'stacked', groupBy: 'color', unit: 'mm', minFeature: 0.15, maxColors: 4 },
  embroidery: { stacking: 'cutouts', groupBy: 'color', unit: 'mm', minFeature: 1, maxColors: 6 },
};

export class ParamsError extends Error {}

const COLOUR = /^#[0-9a-fA-F]{6}$/;

function describe(spec: MemberSpec): string {
  switch (spec.kind) {
    case 'integer':
      return `an integer from ${spec.min} to ${spec.max}`;
    case 'number':
      return `a number of ${spec.min} or more`;
    case 'boolean':
      return 'a boolean (true or false)';
    case 'enum':
      return `one of ${spec.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'colours':
      return `an array of ${spec.minItems} to ${spec.maxItems} colours written "#rrggbb"`;
  }
}

function accepts(spec: MemberSpec, value: unknown): boolean {
  switch (spec.kind) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && value >= spec.min && value <= spec.max;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && value >= spec.min;
    case 'boolean':
      return typeof value === 'boolean';
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value);
    case 'colours':
      return Array.isArray(value) && value.length >= spec.minItems && value.length <= spec.maxItems;
  }
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** A palette as the engine keeps it: lower case, each colour once, in the order given. */
function paletteOf(name: string, value: unknown[]): string[] {
  value.forEach((colour, index) => {
    if (typeof colour !== 'string' || !COLOUR.test(colour)) {
      throw new ParamsError(`params.${name}[${index}]: must be a colour written "#rrggbb" (six hexadecimal digits); got ${shown(colour)}`);
    }
  });
  return [...new Set((value as string[]).map((colour) => colour.toLowerCase()))];
}

/** Parses the `params` form field (a JSON object as text); `undefined` means all defaults. */
export function parseParams(text: string | undefined): TraceParams {
  if (text === undefined || text.trim() === '') return { ...DEFAULT_PARAMS };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ParamsError('params: not valid JSON; send a JSON object such as {"colorPrecision": 6}');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ParamsError('params: must be a JSON object');
  }
  const given: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed)) {
    const spec = Object.hasOwn(PARAM_SPECS, name) ? PARAM_SPECS[name as keyof TraceParams] : undefined;
    if (!spec) {
      throw new ParamsError(
        `params.${name}: unknown member; allowed members are ${Object.keys(PARAM_SPECS).join(', ')}`,
      );
    }
    if (!accepts(spec, value)) {
      throw new ParamsError(`params.${name}: must be ${describe(spec)}; got ${shown(value)}`);
    }
    given[name] = spec.kind === 'colours' ? paletteOf(name, value as unknown[]) : value;
  }
  // Defaults, then the preset's values, then what the request gave: members given explicitly win.
  const preset = given.preset === undefined ? {} : PRESETS[given.preset as Preset];
  return { ...DEFAULT_PARAMS, ...preset, ...given } as TraceParams;
}
