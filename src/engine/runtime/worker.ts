// A worker process of the engine pool: runs one conversion at a time, sent by the parent
// over IPC ('advanced' serialization, so image bytes travel as binary, not JSON).

import sharp from 'sharp';
import { convertImage } from '../convert.ts';
import type { WorkerReply, WorkerTask } from './protocol.ts';
import { warmUp } from './warm-up.ts';
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

warmUp().then(
  () => reply({ type: 'ready' }),
  // A failed warm-up only means a slower first conversion.
  () => reply({ type: 'ready' }),
);
