import { goneStatus, retryAfterStatuses } from '../../shared/retry-after.ts';
import type { CheckRequest } from './requests.ts';

/** What the receiver answered to one request of a case. */
export interface Answer {
  deliveryId: string;
  /** Where it was sent: the endpoint's URL, or its other form (the redirect case). */
  url: string;
  status: number | null;
  ms: number;
  error: string | null;
  /** The first 4 KiB of the response body. */
  body: string;
  headers: Record<string, string>;
  /** What was sent: the body bytes and the signature's t (a receiver's Sandbay-Echo is compared with them). */
  sent: { body: string; timestamp: number };
}

/** The outcome of one case; `decisive` is the answer reported as `got`. */
export interface Verdict {
  ok: boolean;
  warning?: boolean;
  decisive?: Answer;
  cause?: string;
  fix?: string;
}

/** What a case's judge sees: the answers in order, the receiver's effects count, and a way to probe further. */
export interface Judging {
  answers: Answer[];
  /** The receiver's processed count before and after the case, when an effects source was given. */
  effects?: { before: number; after: number } | { error: string };
  /** Sends one more request (recorded with the case) to tell two causes apart. */
  probe(request: CheckRequest): Promise<Answer>;
  /** The secrets the run signs with (an echo's v1 is checked against them). */
  secrets: readonly string[];
}

export type Explanation = Pick<Verdict, 'cause' | 'fix'>;

export const is2xx = (a: Answer) => a.status !== null && a.status >= 200 && a.status < 300;
const is3xx = (a: Answer) => a.status !== null && a.status >= 300 && a.status < 400;
const is4xx = (a: Answer) => a.status !== null && a.status >= 400 && a.status < 500;
const is5xx = (a: Answer) => a.status !== null && a.status >= 500;

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/**
 * The text a person reads on an HTML error page (Flask's abort(400, …), Express's "Cannot POST",
 * PHP's): its title, styles and scripts dropped, tags removed, the common entities decoded.
 */
function textOfHtml(html: string): string {
  return html
    .replace(/<(title|style|script)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->|<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => entities[name]);
}

const isHtml = (a: Answer) =>
  /html/i.test(a.headers['content-type'] ?? '') || /^\s*<(!doctype html|html)\b/i.test(a.body);

/** The status and a short excerpt of the response body, as a cause quotes them (an HTML page by its text). */
export const answered = (a: Answer) => {
  const text = isHtml(a) ? textOfHtml(a.body) : a.body;
  const excerpt = text.trim().replace(/\s+/g, ' ').slice(0, 80);
  return `${a.status}${excerpt ? ` "${excerpt}"` : ''}`;
};

/**
 * What a receiver's answer asks of the sender (SPEC §5.3): 410 Gone turns the endpoint off, Retry-After
 * on 429/502/503/504 slows the next attempt. Said wherever such an answer comes, since production obeys it.
 */
function senderSignal(a: Answer): Explanation | undefined {
  if (a.status === goneStatus) {
    return {
      cause:
        'Answered 410 Gone: to Sandbay (as to any Standard Webhooks sender) that means "stop sending", so the endpoint is disabled and every delivery to it waits until it is enabled again.',
      fix: 'Answer 400 to a request that fails verification, 2xx to one you accept, and 410 only when the receiver is retired for good.',
    };
  }
  const retryAfter = a.headers['retry-after'];
  if (a.status !== null && retryAfterStatuses.has(a.status) && retryAfter !== undefined) {
    return {
      cause: `Answered ${a.status} with Retry-After: ${retryAfter}: it asks Sandbay to slow down, and Sandbay does (the next attempt waits that long, at most 1 h). A receiver that throttles the check's few requests throttles real deliveries too.`,
      fix: 'Acknowledge each delivery with a 2xx as it arrives and do the work from a queue, or raise the rate limit of the webhook route.',
    };
  }
  return undefined;
}

/** Causes every case shares: no answer at all, a redirect, and an answer that tells the sender to stop or slow down. */
function noAnswerOrRedirect(a: Answer): Explanation | undefined {
  const signal = senderSignal(a);
  if (signal) return signal;
  if (a.status === null) {
    const timeout = /timeout/.test(a.error ?? '');
    return {
      cause: `No answer: ${a.error}.`,
      fix: timeout
        ? 'Answer within 10 s: acknowledge with a 2xx first and do the work afterwards (a queue or a background job).'
        : 'Start the receiver and check the URL (scheme, host, port and path).',
    };
  }
  if (is3xx(a)) {
    const location = a.headers.location ? ` to ${a.headers.location}` : '';
    return {
      cause: `Answered ${a.status}, a redirect${location}: Sandbay never follows redirects, so the delivery fails and is retried.`,
      fix: 'Register the final URL (scheme, host, trailing slash) and answer the POST itself with a 2xx; do not redirect, not even after processing.',
    };
  }
  return undefined;
}

const fail = (decisive: Answer, why: Explanation): Verdict => ({ ok: false, decisive, ...why });
const slowest = (answers: Answer[]) => answers.reduce((a, b) => (b.ms > a.ms ? b : a));

/** Passes when every answer is 2xx; the first that is not is explained by `rejected` (unless it is a common cause). */
export async function expect2xx(
  j: Judging,
  rejected: (a: Answer, index: number) => Explanation | Promise<Explanation>,
): Promise<Verdict> {
  const index = j.answers.findIndex((a) => !is2xx(a));
  if (index < 0) return { ok: true, decisive: slowest(j.answers) };
  const a = j.answers[index];
  return fail(a, noAnswerOrRedirect(a) ?? (await rejected(a, index)));
}

/**
 * Passes when every answer is 4xx. A 2xx is explained by `accepted`; a 5xx fails with that named:
 * it says "try again later" about a request that must be refused.
 */
export function expect4xx(j: Judging, accepted: Explanation): Verdict {
  // A 410 refuses, but it also tells the sender to turn the endpoint off: a forged request must not do that.
  const a = j.answers.find((x) => !is4xx(x) || x.status === goneStatus);
  if (!a) return { ok: true, decisive: slowest(j.answers) };
  const common = noAnswerOrRedirect(a);
  if (common) return fail(a, common);
  if (is5xx(a)) {
    return fail(a, {
      cause: `Answered ${answered(a)} to a request it must refuse: a 5xx means "try again later", so Sandbay retries it five times and it ends in the DLQ (and in your error tracker).`,
      fix: 'Verify before anything can throw, and answer a request that fails verification with 400 (or 401/403).',
    });
  }
  if (is2xx(a)) return fail(a, accepted);
  return fail(a, {
    cause: `Answered ${a.status}, neither a 2xx nor a 4xx.`,
    fix: 'Answer 400 to a request that fails verification.',
  });
}

/**
 * Passes on any answer but a redirect: Sandbay never follows one (SPEC §5.3), so a 3xx fails every delivery
 * to that URL. `explain` says what the redirect costs for the request this case sent.
 */
export function expectNoRedirect(j: Judging, explain: (a: Answer) => Explanation): Verdict {
  const a = j.answers.find(is3xx);
  return a ? fail(a, explain(a)) : { ok: true, decisive: slowest(j.answers) };
}

/** Passes on a 2xx within the attempt timeout (a rejection says nothing about speed); warns past `warnMs`. */
export async function expectPromptAcceptance(
  j: Judging,
  warnMs: number,
  rejected: (a: Answer) => Explanation,
): Promise<Verdict> {
  const verdict = await expect2xx(j, rejected);
  if (verdict.ok && verdict.decisive!.ms > warnMs) return { ...verdict, warning: true };
  return verdict;
}
