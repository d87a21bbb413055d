/** The service answered with an error: its status and its `error` message (and the whole JSON body). */
export class VectorizeApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly body: Record<string, unknown>,
    /** Seconds the service asked to wait (Retry-After), on 429 and 503. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`${status}: ${error}`);
    this.name = 'VectorizeApiError';
  }

  /** Which limit refused a 429 (`burst`, `concurrency`, `daily_quota`), when the service says. */
  get limit(): string | undefined {
    return typeof this.body.limit === 'string' ? this.body.limit : undefined;
  }
}

/** No answer within the client's timeout. */
export class VectorizeTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'VectorizeTimeoutError';
  }
}
