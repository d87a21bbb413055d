export { createClient, FORMATS, isTestKey, MEDIA_TYPES } from './client.ts';
export type {
  AccountInfo,
  ClientOptions,
  ConversionResult,
  CutReport,
  FileFormat,
  Format,
  ImageInput,
  Params,
  RetryEvent,
  VectorizeClient,
  VectorizeFile,
  VectorizeJson,
  VectorizeOptions,
} from './client.ts';
export { VectorizeApiError, VectorizeConnectionError, VectorizeTimeoutError } from './errors.ts';
export { convertBatch, collectInputs } from './batch.ts';
export type { BatchEvent, BatchOptions, BatchOutcome } from './batch.ts';
export type { paths, components } from './generated/api.ts';
