import { ApiError } from '../shared/problem.ts';

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
