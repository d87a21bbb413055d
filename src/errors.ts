// The one error type the service throws on purpose: a status, a public message, and
// optionally extra body members and headers. The HTTP layer maps it in one place.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
