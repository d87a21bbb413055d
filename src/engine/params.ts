// The `params` object of the contract (source table 2.3): members, types, ranges and defaults.
// Validation is strict: unknown members, wrong types and out-of-range values are refused
// with a message that names the member and what it accepts.

export type Mode = 'auto' | 'photo' | 'sketch';
export type CurveMode = 'auto' | 'polygon' | 'spline' | 'none';
/** Output options beyond the source's table (see the contract's "Output formats and output options"). */
export type Stacking = 'stacked' | 'cutouts';
export type GroupBy = 'none' | 'color';

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
}

type MemberSpec =
  | { kind: 'integer'; min: number; max: number; default: number }
  | { kind: 'boolean'; default: boolean }
  | { kind: 'enum'; values: readonly string[]; default: string };

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
};

export const DEFAULT_PARAMS: TraceParams = Object.fromEntries(
  Object.entries(PARAM_SPECS).map(([name, spec]) => [name, spec.default]),
) as unknown as TraceParams;

export class ParamsError extends Error {}

function describe(spec: MemberSpec): string {
  switch (spec.kind) {
    case 'integer':
      return `an integer from ${spec.min} to ${spec.max}`;
    case 'boolean':
      return 'a boolean (true or false)';
    case 'enum':
      return `one of ${spec.values.map((v) => JSON.stringify(v)).join(', ')}`;
  }
}

function accepts(spec: MemberSpec, value: unknown): boolean {
  switch (spec.kind) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && value >= spec.min && value <= spec.max;
    case 'boolean':
      return typeof value === 'boolean';
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value);
  }
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
  const result: Record<string, unknown> = { ...DEFAULT_PARAMS };
  for (const [name, value] of Object.entries(parsed)) {
    const spec = Object.hasOwn(PARAM_SPECS, name) ? PARAM_SPECS[name as keyof TraceParams] : undefined;
    if (!spec) {
      throw new ParamsError(
        `params.${name}: unknown member; allowed members are ${Object.keys(PARAM_SPECS).join(', ')}`,
      );
    }
    if (!accepts(spec, value)) {
      throw new ParamsError(`params.${name}: must be ${describe(spec)}; got ${JSON.stringify(value) ?? String(value)}`);
    }
    result[name] = value;
  }
  return result as unknown as TraceParams;
}
