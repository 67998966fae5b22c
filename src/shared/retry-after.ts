/**
 * What a receiver's answer asks of the sender (SPEC §5.3, after the Standard Webhooks guidance):
 * 410 Gone turns the endpoint off; Retry-After on 429, 502, 503 or 504 pushes the next attempt
 * back. Pure, so the engine and the inspector's timeline read a header the same way.
 */

/** Statuses whose Retry-After is honoured: a rate limit, and the three "the server is overloaded" answers. */
export const retryAfterStatuses: ReadonlySet<number> = new Set([429, 502, 503, 504]);
export const goneStatus = 410;
/** The longest a Retry-After may push an attempt back. */
export const maxRetryAfterSeconds = 3600;

/**
 * Seconds a Retry-After value asks to wait (RFC 9110 §10.2.3: delay-seconds, or an HTTP-date taken
 * against the real clock `realNowMs`, as the receiver meant it); undefined when it is neither. A date
 * in the past asks for 0.
 */
export function retryAfterSeconds(value: string, realNowMs: number): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // Only dates that look like HTTP dates: Date.parse accepts much else ("5", "tomorrow" in some engines).
  if (!/^[A-Za-z]{3},? .*\d{2}:\d{2}:\d{2}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - realNowMs) / 1000));
}
