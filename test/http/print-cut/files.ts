// What the print and cut tests share: a service with an unmetered account, and requests for the
// JSON response or a file of any format, checked for status and headers.
import assert from 'node:assert/strict';
import { corpusFile, vectorizeForm } from '../../helpers/http.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

export const FORMAT_TYPES = {
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  eps: 'application/postscript',
  dxf: 'image/vnd.dxf',
  png: 'image/png',
} as const;
export type Format = keyof typeof FORMAT_TYPES;

export interface PrintCutService {
  service: TestService;
  key: string;
  /** The JSON response (200 asserted). */
  json(image: Buffer | string, params: Record<string, unknown>): Promise<Record<string, unknown> & { svg: string; id: string }>;
  /** The file of a format (200 and its type asserted). */
  file(format: Format, image: Buffer | string, params: Record<string, unknown>): Promise<Buffer>;
  /** Any response, for refusals. */
  post(image: Buffer | string, params: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

function bytesOf(image: Buffer | string): Buffer {
  return typeof image === 'string' ? corpusFile(image) : image;
}

export async function startPrintCutService(email: string): Promise<PrintCutService> {
  const service = await startTestService(createSqliteDatabase());
  const key = await service.accountWithKey(email, { plan: 'lifetime' });
  const send = (image: Buffer | string, params: unknown, accept?: string) =>
    fetch(`${service.url}/api/v1/vectorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...(accept ? { accept } : {}) },
      body: vectorizeForm({ image: bytesOf(image), params: typeof params === 'string' ? params : JSON.stringify(params) }),
    });
  return {
    service,
    key,
    async json(image, params) {
      const response = await send(image, params);
      const body = (await response.json()) as Record<string, unknown> & { svg: string; id: string };
      assert.equal(response.status, 200, JSON.stringify(body).slice(0, 300));
      return body;
    },
    async file(format, image, params) {
      const response = await send(image, params, FORMAT_TYPES[format]);
      const bytes = Buffer.from(await response.arrayBuffer());
      assert.equal(response.status, 200, bytes.toString('utf8').slice(0, 300));
      assert.equal(response.headers.get('content-type')?.split(';')[0], FORMAT_TYPES[format]);
      return bytes;
    },
    async post(image, params) {
      const response = await send(image, params);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    async close() {
      await service.close();
      await service.database.drop();
    },
  };
}
