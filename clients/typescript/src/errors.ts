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

/** The service could not be reached: the URL tried, and why (connection refused, unknown host…). */
export class VectorizeConnectionError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach ${url}: ${reasonOf(cause)}`, { cause });
    this.name = 'VectorizeConnectionError';
  }
}

/** The innermost useful message of a fetch failure: `connect ECONNREFUSED 127.0.0.1:1`, `getaddrinfo ENOTFOUND x`. */
function reasonOf(error: unknown): string {
  let current: unknown = error;
  let reason = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const inner: unknown = current.cause;
    if (inner instanceof Error && inner.message) reason = inner.message;
    else if (inner && typeof inner === 'object' && 'code' in inner) reason = String((inner as { code: unknown }).code);
    current = inner;
  }
  return reason;
}
