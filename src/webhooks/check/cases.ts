import type { CheckRequest } from './requests.ts';
import { rejectedCorrectDelivery, rejectedLargeBody, rejectedUtf8Body } from './diagnosis.ts';
import {
  answered,
  expect2xx,
  expect4xx,
  expectNoRedirect,
  expectPromptAcceptance,
  type Judging,
  type Verdict,
} from './verdicts.ts';
import { sandbayWords, type CheckWords } from './words.ts';

/** What the cases build their requests from: the sandbox's own data. */
export interface CaseData {
  /** order.placed data of a real order, and its order.cancelled. */
  placed: Record<string, unknown>;
  cancelled: Record<string, unknown>;
  /**
   * Topics the receiver does not handle: a real one outside the endpoint's subscription (with --endpoint), and
   * x.unknown.
   */
  unhandled: { topic: string; data: unknown }[];
  /** Whether an effects source was given (the duplicate then checks the delivery was processed once). */
  effects: boolean;
}

/** One case of the battery: what it guards against, what it sends, and what passes. */
export interface CheckCase {
  id: string;
  /** What it sends, in a few words (the CLI's and the inspector's line for the case). */
  sends: string;
  guards: string;
  /**
   * A case that passes by refusing a bad request. Its refusal proves nothing while `valid` fails
   * (a receiver that refuses everything refuses these too): it is then blocked, not scored.
   */
  rejects: boolean;
  expected: (data: Pick<CaseData, 'effects'>) => string;
  requests: (data: CaseData) => CheckRequest[];
  /** Read the receiver's processed count before and after the requests. */
  countsEffects?: boolean;
  judge: (j: Judging, data: CaseData) => Verdict | Promise<Verdict>;
}

const latencyWarnMs = 2000;
const largeBodyBytes = 1024 * 1024;
const turkish = 'İ ı ğ ü ş ö ç';

const utf8Data = (d: CaseData) => ({
  ...d.placed,
  shippingAddress: { city: 'İstanbul', district: 'Kadıköy' },
  note: turkish,
});

/**
 * The battery (SPEC §10), in the order it runs, worded for the run's scheme (SPEC §11: the same cases
 * for Standard Webhooks, on its headers; the duplicate keyed on webhook-id). Adding a case is adding an
 * entry; every case is required for exit code 0, and only `latency` can end in a warning. `valid` runs
 * first: while it fails, the cases it blocks are not scored (runner.ts).
 */
export const casesFor = (w: CheckWords): readonly CheckCase[] => [
  {
    id: 'valid',
    rejects: false,
    sends: 'a correct delivery of order.placed',
    guards:
      'a receiver that rejects correct deliveries (wrong or stripped secret, re-serialised body); every other case waits on it',
    expected: () => '2xx',
    requests: (d) => [{ topic: 'order.placed', data: d.placed }],
    judge: (j, d) => expect2xx(j, (a) => rejectedCorrectDelivery(j, a, 'order.placed', d.placed, w)),
  },
  {
    id: 'tampered-body',
    rejects: true,
    sends: 'a correct header, one byte of the body changed',
    guards: 'forged events: a body changed after signing is accepted',
    expected: () => '4xx',
    requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'tampered' }],
    judge: (j) =>
      expect4xx(j, {
        cause:
          'Accepted a body that does not match its signature (one digit of the amount was changed): anyone can forge events.',
        fix: w.verify,
      }),
  },
  {
    id: 'wrong-secret',
    rejects: true,
    sends: `signed with another ${w.hmac ? 'secret' : 'key pair'}`,
    guards: `a signature that is not checked against the endpoint ${w.key}`,
    expected: () => '4xx',
    requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'wrong-secret' }],
    judge: (j) =>
      expect4xx(j, {
        cause: `Accepted a request signed with another ${w.hmac ? 'secret' : 'key pair'}: the signature is not checked with your ${w.key}.`,
        fix: w.verify,
      }),
  },
  {
    id: 'stale-timestamp',
    rejects: true,
    sends: `signed correctly, ${w.t} 10 minutes in the past`,
    guards: 'replays of a captured request',
    expected: () => '4xx',
    requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'stale' }],
    judge: (j) =>
      expect4xx(j, {
        cause: `Accepted a correctly signed request whose ${w.t} is 10 minutes old: the timestamp is not checked, so a captured request can be replayed forever.`,
        fix: `Reject a signature whose ${w.t} is more than 300 s from now, in both directions (verifyWebhook does).`,
      }),
  },
  {
    id: 'future-timestamp',
    rejects: true,
    sends: `signed correctly, ${w.t} 10 minutes in the future`,
    guards: 'a timestamp check that only looks one way',
    expected: () => '4xx',
    requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'future' }],
    judge: (j) =>
      expect4xx(j, {
        cause: `Accepted a correctly signed request whose ${w.t} is 10 minutes in the future: only old timestamps are refused (as in Stripe's SDKs).`,
        fix: `Check |now − ${w.t}| ≤ 300 s, not only now − ${w.t} ≤ 300 s (verifyWebhook does).`,
      }),
  },
  {
    id: 'missing-signature',
    rejects: true,
    sends: `no ${w.header} header`,
    guards: 'verification skipped when the header is absent',
    expected: () => '4xx',
    requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'none' }],
    judge: (j) =>
      expect4xx(j, {
        cause: `Accepted a request without a ${w.header} header: verification is skipped when the header is missing.`,
        fix: w.verify,
      }),
  },
  {
    id: 'malformed-signature',
    rejects: true,
    sends: `${w.header} "${w.malformed[0]}", then "${w.malformed[1]}"`,
    guards: 'a header parser that crashes or lets garbage through',
    expected: () => '4xx (never 5xx)',
    requests: (d) => w.malformed.map((header) => ({ topic: 'order.placed', data: d.placed, signing: { header } })),
    judge: (j) =>
      expect4xx(j, {
        cause: `Accepted a request whose ${w.header} cannot be parsed ("${w.malformed[0]}" or "${w.malformed[1]}").`,
        fix: w.verify,
      }),
  },
  {
    id: 'rotation',
    rejects: false,
    sends: `two ${w.signature}s${w.standard ? ', space-separated' : ''}: the first from an old ${w.key}, the second valid`,
    guards: `a receiver that compares only the first ${w.signature} (breaks during a ${w.key} rotation)`,
    expected: () => '2xx',
    requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'rotation' }],
    judge: (j) =>
      expect2xx(j, (a) => ({
        cause: `Rejected a header whose first ${w.signature} is from another ${w.key} and whose second is valid (${answered(a)}): it compares only the first ${w.signature}.`,
        fix: `Accept the request when any ${w.signature} matches one of your ${w.key}s: during the 24 h after a rotation the header carries one ${w.signature} per live ${w.key} (verifyWebhook does).`,
      })),
  },
  {
    id: 'duplicate',
    rejects: false,
    sends: `the same delivery twice (same ${w.id}, fresh signature)`,
    guards: 'a delivery processed twice (delivery is at least once)',
    countsEffects: true,
    expected: (d) =>
      d.effects
        ? '2xx both times, processed once'
        : '2xx both times (processed once: not checked without an effects URL)',
    requests: (d) => [
      { topic: 'order.placed', data: d.placed },
      { topic: 'order.placed', data: d.placed, again: true },
    ],
    judge: async (j) => {
      const verdict = await expect2xx(j, (a, i) => ({
        cause: `Rejected the ${i === 0 ? 'first' : 'second'} copy of one delivery (${answered(a)}): a delivery already processed must still be acknowledged, or Sandbay retries it.`,
        fix: `Dedupe on ${w.id}: when you have processed it, answer 200 without processing it again (createDeliveryDeduper, or a unique key in your database).`,
      }));
      if (!verdict.ok || !j.effects) return verdict;
      if ('error' in j.effects)
        return {
          ok: false,
          decisive: j.answers[1],
          cause: `Could not read the effects URL: ${j.effects.error}.`,
          fix: 'Serve GET <effects URL> with the count of processed events, as a bare number or {"count": n}.',
        };
      const rose = j.effects.after - j.effects.before;
      if (rose === 1) return verdict;
      return {
        ok: false,
        decisive: j.answers[1],
        cause: `The same delivery was processed ${rose === 2 ? 'twice' : `${rose} times`}: the effects count went from ${j.effects.before} to ${j.effects.after}.`,
        fix: `Record each ${w.id} you process (in the same transaction as its effect) and skip one you have seen; answer 200 either way.`,
      };
    },
  },
  {
    id: 'out-of-order',
    rejects: false,
    sends: 'order.cancelled for an order, then its order.placed',
    guards: 'a receiver that depends on the order of deliveries',
    expected: () => '2xx both',
    requests: (d) => [
      { topic: 'order.cancelled', data: d.cancelled },
      { topic: 'order.placed', data: d.placed },
    ],
    judge: (j) =>
      expect2xx(j, (a, i) => ({
        cause: `Rejected ${i === 0 ? 'order.cancelled for an order it had not seen placed' : 'order.placed arriving after its order.cancelled'} (${answered(a)}): deliveries are not ordered (as with Stripe).`,
        fix: `Acknowledge with 2xx and reconcile: store the event and apply it by ${w.standard ? 'its timestamp' : 'occurredAt'}, or fetch the order's current state (GET /api/v1/orders/{id}).`,
      })),
  },
  {
    id: 'unknown-topic',
    rejects: false,
    sends: 'a well-signed topic the receiver does not handle',
    guards: 'a new or unsubscribed topic that breaks the receiver',
    expected: () => '2xx (ignored)',
    requests: (d) => d.unhandled.map((u) => ({ topic: u.topic, data: u.data })),
    judge: (j, d) =>
      expect2xx(j, (a, i) => ({
        cause: `Answered ${answered(a)} to ${d.unhandled[i].topic}, a topic it does not handle.`,
        fix: 'Answer 2xx to a topic you do not handle and ignore it: topics are added over time, and a 4xx or 5xx makes Sandbay retry it five times into the DLQ.',
      })),
  },
  {
    id: 'utf8-body',
    rejects: false,
    sends: 'Turkish text (İ ı ğ ü ş ö ç), pretty-printed',
    guards: 'a body decoded as Latin-1, trimmed, or parsed and serialised again before verifying',
    expected: () => '2xx',
    requests: (d) => [{ topic: 'order.placed', data: utf8Data(d), layout: 'utf8-pretty' }],
    judge: (j, d) => expect2xx(j, (a) => rejectedUtf8Body(j, a, 'order.placed', utf8Data(d))),
  },
  {
    id: 'large-body',
    rejects: false,
    sends: 'a valid 1 MiB body',
    guards: 'a body-size limit below what Sandbay sends',
    expected: () => '2xx',
    requests: (d) => [{ topic: 'order.placed', data: d.placed, bytes: largeBodyBytes }],
    judge: (j, d) => expect2xx(j, (a) => rejectedLargeBody(j, a, 'order.placed', d.placed)),
  },
  {
    id: 'latency',
    rejects: false,
    sends: 'a correct delivery, timed',
    guards: 'slow answers (Sandbay gives up after 10 s and retries)',
    expected: () => '2xx within 10 s (warns above 2 s)',
    requests: (d) => [{ topic: 'order.placed', data: d.placed }],
    judge: (j) =>
      expectPromptAcceptance(j, latencyWarnMs, (a) => ({
        cause: `Rejected a correct delivery (${answered(a)}) although valid's twin was accepted: it answers the same delivery differently from one request to the next.`,
        fix: 'Acknowledge every correctly signed delivery with a 2xx; a time is only worth measuring on one it accepted.',
      })),
  },
  {
    // `valid` already fails a receiver that redirects its own URL; this one sends where routers redirect
    // (the URL's other trailing-slash form), which valid never reaches.
    id: 'redirect',
    rejects: false,
    sends: 'a correct delivery to the URL with its trailing slash toggled (/hook ↔ /hook/)',
    guards:
      "a router that redirects the URL's other form: Sandbay never follows a redirect, so an endpoint registered in that form fails every delivery",
    expected: () => 'any answer but a 3xx (a 2xx, or a 404 when only the registered form is served)',
    requests: (d) => [{ topic: 'order.placed', data: d.placed, slashToggled: true }],
    judge: (j) =>
      expectNoRedirect(j, (a) => ({
        cause: `Answered ${a.status}, a redirect${a.headers.location ? ` to ${a.headers.location}` : ''}, to a correct delivery sent to ${a.url}: Sandbay never follows a redirect (nor do Stripe or GitHub), so an endpoint registered with that form of the URL has every delivery fail, five times, into the DLQ.`,
        fix: "Answer the webhook route's POST under both forms of its path (or turn the router's trailing-slash redirect off for it), and register the form it serves.",
      })),
  },
];

/** The battery in Sandbay's own words (the API's list of cases, a run of its scheme). */
export const checkCases: readonly CheckCase[] = casesFor(sandbayWords);
