import { ANY_ERROR_CATALOGUE, type AnyErrorCode } from './error-catalogue.ts';

export interface ApiErrorOptions {
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Overrides the catalogue's status; used only for 502 on a mod that broke the op contract. */
  status?: number;
}

/**
 * The one exception type of the request pipeline. Whatever throws it picks the code; the status
 * and default message come from the catalogue.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: AnyErrorCode,
    message: string = ANY_ERROR_CATALOGUE[code].message,
    options: ApiErrorOptions = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = options.status ?? ANY_ERROR_CATALOGUE[code].status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}
