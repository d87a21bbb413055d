// A worker process of the engine pool: runs one conversion at a time, sent by the parent
// over IPC ('advanced' serialization, so image bytes travel as binary, not JSON).

import sharp from 'sharp';
import { convertImage } from '../convert.ts';
import type { WorkerReply, WorkerTask } from './protocol.ts';
import { DEFAULT_PARAMS } from '../params.ts';
import { EngineError } from '../types.ts';

// One conversion per process, one process per core: libvips threads would only compete.
sharp.concurrency(1);
sharp.cache(false);

function reply(message: WorkerReply): void {
  process.send?.(message);
}

process.on('message', (task: WorkerTask) => {
  const image = Buffer.isBuffer(task.image)
    ? task.image
    : Buffer.from(task.image.buffer, task.image.byteOffset, task.image.byteLength);
  convertImage({ image, params: task.params, format: task.format, watermark: task.watermark }, { maxInputPixels: task.maxInputPixels }).then(
    (result) => reply({ type: 'result', id: task.id, result }),
    (error: unknown) => {
      const kind = error instanceof EngineError ? error.kind : 'engine_failed';
      const message = error instanceof Error ? error.message : String(error);
      reply({ type: 'error', id: task.id, kind, message });
    },
  );
});

// The parent owns this process; when the IPC channel goes, so do we.
process.on('disconnect', () => process.exit(0));

/**
 * Runs small conversions through the colour and the line-art paths before saying ready, so
 * the first real request does not pay for compiling the code paths (a few hundred ms).
 */
async function warmUp(): Promise<void> {
  const size = 96;
  const gradient = Buffer.alloc(size * size * 3);
  for (let i = 0; i < size * size; i++) gradient.set([(i % size) * 2, Math.floor(i / size) * 2, 128], i * 3);
  const photo = await sharp(gradient, { raw: { width: size, height: size, channels: 3 } }).jpeg().toBuffer();
  const drawing = await sharp({ create: { width: size, height: size, channels: 3, background: '#ffffff' } })
    .composite([{ input: { create: { width: 40, height: 8, channels: 3, background: '#000000' } }, left: 20, top: 40 }])
    .png()
    .toBuffer();
  const runs = [
    { image: photo, mode: 'photo', curveMode: 'polygon' },
    { image: photo, mode: 'photo', curveMode: 'spline' },
    { image: drawing, mode: 'sketch', curveMode: 'spline' },
  ] as const;
  for (const { image, mode, curveMode } of runs) {
    await convertImage({ image, params: { ...DEFAULT_PARAMS, mode, curveMode } }, { maxInputPixels: size * size });
  }
}

warmUp().then(
  () => reply({ type: 'ready' }),
  // A failed warm-up only means a slower first conversion.
  () => reply({ type: 'ready' }),
);
