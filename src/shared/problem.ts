export interface FieldError {
  /** JSON Pointer to the offending field, e.g. /items/0/quantity */
  path: string;
  message: string;
}

/**
 * An error the API reports (domain rules throw it; the server renders it) as RFC 9457 problem details; `code` is the
 * stable contract.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly options: { errors?: FieldError[]; headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(detail);
  }
}

const titles: Record<string, string> = {
  malformed_json: 'Malformed JSON',
  unknown_field: 'Unknown field',
  validation_failed: 'Validation failed',
  missing_token: 'Missing token',
  invalid_token: 'Invalid token',
  token_expired: 'Token expired',
  insufficient_scope: 'Insufficient scope',
  not_found: 'Not found',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  idempotency_key_reused: 'Idempotency key reused',
  idempotency_key_in_use: 'Idempotency key in use',
  host_not_allowed: 'Host not allowed',
  origin_not_allowed: 'Origin not allowed',
  method_not_allowed: 'Method not allowed',
  rate_limited: 'Too many requests',
  internal_error: 'Internal error',
};

const titleOf = (code: string) => titles[code] ?? code.charAt(0).toUpperCase() + code.slice(1).replace(/_/g, ' ');

/** The problem+json body for an error. */
export function problemBody(err: ApiError) {
  return {
    type: `https://sandbay.dev/problems/${err.code}`,
    title: titleOf(err.code),
    status: err.status,
    detail: err.detail,
    code: err.code,
    ...(err.options.errors ? { errors: err.options.errors } : {}),
    ...err.options.extra,
  };
}

export const notFound = (what: string) => new ApiError(404, 'not_found', `No such ${what}.`);
export const validationFailed = (errors: FieldError[]) =>
  new ApiError(422, 'validation_failed', errors.map((e) => `${e.path || '/'}: ${e.message}`).join('; '), { errors });

/** 422 for a reference to something the tenant does not have, e.g. customer_not_found. */
export const unknownReference = (code: string, path: string, detail: string) =>
  new ApiError(422, code, detail, { errors: [{ path, message: detail }] });

/**
 * 409 for a transition the state machine refuses; the code names the current state
 * (order_cancelled, quote_expired, …) and currentStatus carries it as data.
 */
export const illegalTransition = (object: string, status: string, action: string) =>
  new ApiError(409, `${object}_${status}`, `Cannot ${action} this ${object}: it is ${status.replace(/_/g, ' ')}.`, {
    extra: { currentStatus: status },
  });
