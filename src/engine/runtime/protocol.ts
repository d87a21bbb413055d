// Messages between the engine pool and its worker processes.

import type { TraceParams } from '../params.ts';
import type { EngineErrorKind, TraceResult } from '../types.ts';
import type { FileFormat } from '../write/index.ts';

export interface WorkerTask {
  id: number;
  image: Uint8Array;
  params: TraceParams;
  format?: FileFormat;
  watermark?: boolean;
  maxInputPixels: number;
}

export type WorkerReply =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: TraceResult }
  | { type: 'error'; id: number; kind: EngineErrorKind; message: string };
