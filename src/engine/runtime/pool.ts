// The engine as the service sees it: a pool of worker processes behind a bounded FIFO queue.
// Processes, not threads, so a conversion that hangs or crashes in native code can be
// killed outright (SIGKILL) without taking the server with it.

import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { WorkerReply, WorkerTask } from './protocol.ts';
import { EngineError, type Engine, type EngineOptions, type TraceRequest, type TraceResult } from '../types.ts';

export interface ConvertCallOptions {
  /** Overrides EngineOptions.timeoutMs for this conversion. */
  timeoutMs?: number;
}

/** What the pool reports as it works, for metrics; every member optional. */
export interface EngineObserver {
  /** A conversion left the queue for a worker after waiting this long. */
  queueWait?(ms: number): void;
  /** A worker exited while the pool was open: killed past the time limit, or crashed. */
  workerExit?(reason: 'timeout' | 'crash'): void;
}

export interface EngineDependencies {
  observer?: EngineObserver;
  /** The worker script; the default is the worker beside this file (worker.ts through tsx, or compiled worker.js). */
  workerPath?: string;
  execArgv?: string[];
}

interface Job {
  request: TraceRequest;
  queuedAt: number;
  timeoutMs: number;
  resolve: (result: TraceResult) => void;
  reject: (error: EngineError) => void;
}

interface WorkerSlot {
  child: ChildProcess;
  ready: boolean;
  job: { id: number; job: Job; timer: NodeJS.Timeout } | null;
  /** Set when the pool killed it on purpose (timeout, close), so exit is not reported as a crash. */
  expectedExit: EngineError | null;
}

/** The workers' niceness (0 is the server's): CPU-bound, they run whenever the server's thread is idle. */
export const WORKER_NICENESS = 10;

/** A worker that dies before saying it is ready is respawned after this pause, not in a tight loop. */
const RESPAWN_DELAY_MS = 250;
/** After this many workers in a row die before ready, waiting conversions are failed, not left hanging. */
const STARTUP_FAILURES_BEFORE_GIVING_UP = 3;
/** 'ts' when run from src/ through tsx, 'js' when run from the compiled dist/ (`npm start`). */
const OWN_EXTENSION = import.meta.url.endsWith('.js') ? 'js' : 'ts';

export function createEngine(options: EngineOptions, dependencies: EngineDependencies = {}): Engine & {
  convert(request: TraceRequest, callOptions?: ConvertCallOptions): Promise<TraceResult>;
} {
  const workerPath = dependencies.workerPath ?? fileURLToPath(new URL(`./worker.${OWN_EXTENSION}`, import.meta.url));
  // Compiled, the worker is plain JavaScript; from the sources it needs tsx's loader, as we do.
  const execArgv = dependencies.execArgv ?? (OWN_EXTENSION === 'js' ? [] : ['--import', 'tsx']);
  const workerCount = Math.max(1, Math.floor(options.workers));
  const queue: Job[] = [];
  const slots = new Set<WorkerSlot>();
  let nextJobId = 1;
  let closed = false;
  let startupFailures = 0;

  function spawnWorker(): void {
    if (closed) return;
    const child = fork(workerPath, [], {
      execArgv,
      // Few malloc arenas: libvips' large, short-lived buffers otherwise fragment the heap and a
      // worker keeps about twice the memory after big images (measured: 442 MB → 249 MB).
      env: { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // Tracing yields the CPU to the server's own thread: with every core tracing, requests,
    // uploads and /healthz would otherwise wait for a time slice behind the workers.
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, WORKER_NICENESS);
      } catch {
        // Not permitted here (some containers): the worker runs at the server's priority.
      }
    }
    const slot: WorkerSlot = { child, ready: false, job: null, expectedExit: null };
    slots.add(slot);

    child.on('message', (message: WorkerReply) => {
      if (message.type === 'ready') {
        slot.ready = true;
        startupFailures = 0;
        dispatch();
        return;
      }
      const running = slot.job;
      if (!running || running.id !== message.id) return;
      clearTimeout(running.timer);
      slot.job = null;
      if (message.type === 'result') running.job.resolve(message.result);
      else running.job.reject(new EngineError(message.kind, message.message));
      dispatch();
    });

    child.on('error', () => {
      // 'exit' follows when the process is gone; a failed kill() needs nothing more.
    });

    child.on('exit', (code, signal) => {
      slots.delete(slot);
      const running = slot.job;
      slot.job = null;
      if (running) {
        clearTimeout(running.timer);
        running.job.reject(
          slot.expectedExit ??
            new EngineError('engine_failed', `the engine worker stopped during the conversion (${signal ?? `exit code ${code}`})`),
        );
      }
      if (closed) return;
      dependencies.observer?.workerExit?.(slot.expectedExit?.kind === 'timeout' ? 'timeout' : 'crash');
      if (slot.ready) {
        spawnWorker();
        return;
      }
      startupFailures++;
      if (startupFailures >= STARTUP_FAILURES_BEFORE_GIVING_UP) {
        const failure = new EngineError('engine_failed', 'the engine workers cannot start');
        for (const job of queue.splice(0)) job.reject(failure);
      }
      setTimeout(spawnWorker, RESPAWN_DELAY_MS).unref();
    });
  }

  function kill(slot: WorkerSlot, reason: EngineError): void {
    slot.expectedExit = reason;
    slot.child.kill('SIGKILL');
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (queue.length === 0) return;
      if (!slot.ready || slot.job || slot.expectedExit) continue;
      const job = queue.shift() as Job;
      dependencies.observer?.queueWait?.(performance.now() - job.queuedAt);
      const id = nextJobId++;
      const timer = setTimeout(() => {
        kill(slot, new EngineError('timeout', `the conversion exceeded its time limit of ${job.timeoutMs} ms`));
      }, job.timeoutMs);
      slot.job = { id, job, timer };
      const task: WorkerTask = {
        id,
        image: job.request.image,
        params: job.request.params,
        format: job.request.format,
        watermark: job.request.watermark,
        maxInputPixels: options.maxInputPixels,
      };
      slot.child.send(task, (error) => {
        if (error && slot.job?.id === id) kill(slot, new EngineError('engine_failed', 'the engine worker could not be reached'));
      });
    }
  }

  function convert(request: TraceRequest, callOptions: ConvertCallOptions = {}): Promise<TraceResult> {
    if (closed) return Promise.reject(new EngineError('closed', 'the engine is shutting down'));
    const idle = [...slots].some((slot) => slot.ready && !slot.job && !slot.expectedExit);
    if (!idle && queue.length >= options.queueLimit) {
      return Promise.reject(new EngineError('queue_full', 'the conversion queue is full'));
    }
    return new Promise<TraceResult>((resolve, reject) => {
      queue.push({ request, queuedAt: performance.now(), timeoutMs: callOptions.timeoutMs ?? options.timeoutMs, resolve, reject });
      dispatch();
    });
  }

  function load(): { running: number; queued: number; workers: number } {
    let running = 0;
    for (const slot of slots) if (slot.job) running++;
    return { running, queued: queue.length, workers: slots.size };
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    const shuttingDown = new EngineError('closed', 'the engine is shutting down');
    for (const job of queue.splice(0)) job.reject(shuttingDown);
    const exits = [...slots].map(
      (slot) =>
        new Promise<void>((resolve) => {
          if (slot.child.exitCode !== null || slot.child.signalCode !== null) {
            resolve();
            return;
          }
          slot.child.once('exit', () => resolve());
          kill(slot, shuttingDown);
        }),
    );
    await Promise.all(exits);
  }

  for (let i = 0; i < workerCount; i++) spawnWorker();
  return { convert, load, close };
}
