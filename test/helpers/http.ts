// Real HTTP requests against a started server (fetch and FormData from Node itself).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CORPUS = fileURLToPath(new URL('../../../shared/corpus/', import.meta.url));

export function corpusFile(relative: string): Buffer {
  return readFileSync(`${CORPUS}${relative}`);
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function asJson(response: Response): Promise<JsonResponse> {
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`response ${response.status} is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, headers: response.headers, body };
}

export interface VectorizeInput {
  image?: Buffer;
  filename?: string;
  params?: string | Record<string, unknown>;
  extraFields?: Record<string, string>;
}

export function vectorizeForm(input: VectorizeInput): FormData {
  const form = new FormData();
  if (input.image) form.append('image', new Blob([new Uint8Array(input.image)]), input.filename ?? 'image.png');
  if (input.params !== undefined) {
    form.append('params', typeof input.params === 'string' ? input.params : JSON.stringify(input.params));
  }
  for (const [name, value] of Object.entries(input.extraFields ?? {})) form.append(name, value);
  return form;
}

export async function postVectorize(baseUrl: string, key: string | undefined, input: VectorizeInput): Promise<JsonResponse> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  return asJson(await fetch(`${baseUrl}/api/v1/vectorize`, { method: 'POST', headers, body: vectorizeForm(input) }));
}

export async function getResult(baseUrl: string, key: string | undefined, id: string): Promise<JsonResponse> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  return asJson(await fetch(`${baseUrl}/api/v1/result/${encodeURIComponent(id)}`, { headers }));
}

export async function request(baseUrl: string, path: string, init: RequestInit = {}): Promise<JsonResponse> {
  return asJson(await fetch(`${baseUrl}${path}`, init));
}
