// Prometheus metrics of one service instance. A registry per instance (not prom-client's
// global one), so tests can run several services in one process without clashing names.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { EngineError, type Engine, type TraceRequest, type TraceResult } from '../engine/types.ts';
import type { EngineObserver } from '../engine/runtime/pool.ts';

/** Why a request was refused by a limit: `credits` (402) or the kind the limits code names (429). */
export type LimitKind = 'credits' | 'burst' | 'concurrency' | 'daily_quota' | (string & {});

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  conversionDuration: Histogram<'outcome'>;
  queueWait: Histogram;
  workerRestarts: Counter<'reason'>;
  creditsSpent: Counter;
  creditsRefunded: Counter;
  limitRefusals: Counter<'kind'>;
  admissionRefusals: Counter;
  housekeepingPasses: Counter<'outcome'>;
  leaseRefunds: Counter;
  countLimitRefusal(kind: LimitKind): void;
}

export interface MetricsOptions {
  /** Queue depth, running conversions and workers, read at scrape time. */
  engineLoad?: () => { running: number; queued: number; workers: number };
  /** Process metrics (CPU, RSS, event loop lag); off in tests that only read our own series. */
  processMetrics?: boolean;
}

// Conversions run from milliseconds (icons) to the 30 s time limit (large photos).
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'vectorize_' });
  const registers = [registry];

  const limitRefusals = new Counter({
    name: 'vectorize_limit_refusals_total',
    help: 'Requests refused by a limit, by kind (credits = 402, others = 429 burst, concurrency, daily_quota)',
    labelNames: ['kind'] as const,
    registers,
  });
  const engineLoad = options.engineLoad;
  if (engineLoad) {
    new Gauge({
      name: 'vectorize_queue_depth',
      help: 'Conversions waiting for a worker',
      registers,
      collect() {
        this.set(engineLoad().queued);
      },
    });
    new Gauge({
      name: 'vectorize_conversions_running',
      help: 'Conversions being traced by a worker',
      registers,
      collect() {
        this.set(engineLoad().running);
      },
    });
    new Gauge({
      name: 'vectorize_workers',
      help: 'Worker processes alive (including ones starting)',
      registers,
      collect() {
        this.set(engineLoad().workers);
      },
    });
  }

  return {
    registry,
    httpRequests: new Counter({
      name: 'vectorize_http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'vectorize_http_request_duration_seconds',
      help: 'HTTP request duration by method and route pattern',
      labelNames: ['method', 'route'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    conversionDuration: new Histogram({
      name: 'vectorize_conversion_duration_seconds',
      help: 'Engine time per conversion (decode, trace, SVG), by outcome',
      labelNames: ['outcome'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    queueWait: new Histogram({
      name: 'vectorize_queue_wait_seconds',
      help: 'Time a conversion waited for a worker (including the hand-over to it)',
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    workerRestarts: new Counter({
      name: 'vectorize_worker_restarts_total',
      help: 'Worker processes replaced after a timeout kill or a crash during a conversion',
      labelNames: ['reason'] as const,
      registers,
    }),
    creditsSpent: new Counter({
      name: 'vectorize_credits_spent_total',
      help: 'Credits debited by successful metered conversions',
      registers,
    }),
    creditsRefunded: new Counter({
      name: 'vectorize_credits_refunded_total',
      help: 'Credits given back because a metered conversion failed after its reservation',
      registers,
    }),
    limitRefusals,
    admissionRefusals: new Counter({
      name: 'vectorize_admission_refusals_total',
      help: 'Uploads refused with 503 because MAX_CONCURRENT_UPLOADS were already in flight',
      registers,
    }),
    housekeepingPasses: new Counter({
      name: 'vectorize_housekeeping_passes_total',
      help: 'Housekeeping passes by outcome: ran (this node held the lock), skipped (another node held it), failed',
      labelNames: ['outcome'] as const,
      registers,
    }),
    leaseRefunds: new Counter({
      name: 'vectorize_lease_refunds_total',
      help: 'Reservations whose lease expired (their node died mid-conversion), refunded by this node\'s housekeeping',
      registers,
    }),
    countLimitRefusal(kind) {
      limitRefusals.inc({ kind });
    },
  };
}

/** A gauge read at scrape time from whoever owns the number (the app's in-flight counters). */
export function gaugeOf(metrics: Metrics, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers: [metrics.registry],
    collect() {
      this.set(read());
    },
  });
}

/**
 * The engine as the conversion use case sees it, timing each conversion. The pool does not
 * report when a job leaves the queue, so the wait is the whole call minus the engine's own
 * processing time: queueing plus the IPC hand-over, which is what a client waits for anyway.
 */
/** The engine's reports, as metrics: queue wait and worker restarts. */
export function engineObserver(metrics: Metrics): EngineObserver {
  return {
    queueWait: (ms) => metrics.queueWait.observe(ms / 1000),
    workerExit: (reason) => metrics.workerRestarts.inc({ reason }),
  };
}

/** Conversion durations by outcome, around the engine. */
export function instrumentEngine(engine: Engine, metrics: Metrics, clock: () => number = performance.now.bind(performance)): Engine {
  return {
    load: () => engine.load(),
    close: () => engine.close(),
    async convert(request: TraceRequest): Promise<TraceResult> {
      const started = clock();
      try {
        const result = await engine.convert(request);
        metrics.conversionDuration.observe({ outcome: 'ok' }, result.processingTimeMs / 1000);
        return result;
      } catch (error) {
        // Refused before it ran (queue full, closing): no duration to record.
        if (error instanceof EngineError && error.kind !== 'queue_full' && error.kind !== 'closed') {
          metrics.conversionDuration.observe({ outcome: error.kind }, (clock() - started) / 1000);
        }
        throw error;
      }
    },
  };
}
