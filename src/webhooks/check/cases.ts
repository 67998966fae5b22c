import { bodyRepairs } from '../../shared/body-repairs.ts';
import { secretMistakes } from '../../shared/receiver-doctor.ts';
import type { CheckRequest } from './requests.ts';
import { answered, expect2xx, expect4xx, expectPromptAnswer, is2xx, type Answer, type Explanation, type Judging, type Verdict } from './verdicts.ts';

/** What the cases build their requests from: the sandbox's own data. */
export interface CaseData {
  /** order.placed data of a real order, and its order.cancelled. */
  placed: Record<string, unknown>;
  cancelled: Record<string, unknown>;
  /** Topics the receiver does not handle: a real one outside the endpoint's subscription (with --endpoint), and x.unknown. */
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
  expected: (data: Pick<CaseData, 'effects'>) => string;
  requests: (data: CaseData) => CheckRequest[];
  /** Read the receiver's processed count before and after the requests. */
  countsEffects?: boolean;
  judge: (j: Judging, data: CaseData) => Verdict | Promise<Verdict>;
}

export const latencyWarnMs = 2000;
export const largeBodyBytes = 1024 * 1024;
const turkish = 'İ ı ğ ü ş ö ç';

const verify: Explanation['fix'] = 'Verify X-Service-Signature over the raw body bytes on every request (verifyWebhook from sandbay/receiver) and answer 400 when it fails.';
const doctor = (lead: string, mistake: { title: string; detail: string }): Explanation => ({ cause: `${lead} ${mistake.title}.`, fix: mistake.detail });
const repair = (code: 'reserialised_json' | 'wrong_encoding') => bodyRepairs.find((r) => r.code === code)!;

const utf8Data = (d: CaseData) => ({ ...d.placed, shippingAddress: { city: 'İstanbul', district: 'Kadıköy' }, note: turkish });

async function rejectedValid(j: Judging, a: Answer, d: CaseData): Promise<Explanation> {
  for (const signing of ['stripped-prefix', 'decoded-key'] as const) {
    if (is2xx(await j.probe({ topic: 'order.placed', data: d.placed, signing }))) {
      const how = signing === 'decoded-key' ? 'stripped of whsec_ and base64-decoded' : 'without its whsec_ prefix';
      return doctor(`Rejected a correct delivery (${answered(a)}) but accepted one signed with the secret ${how}:`, secretMistakes.stripped_prefix);
    }
  }
  return {
    cause: `Rejected a correct delivery signed with this secret (${answered(a)}).`,
    fix: `${secretMistakes.wrong_secret.detail} Verify the raw body bytes, not JSON parsed and serialised again. Open this delivery in the inspector: its signature breakdown and doctor name the mistake.`,
  };
}

async function rejectedUtf8(j: Judging, a: Answer, d: CaseData): Promise<Explanation> {
  if (is2xx(await j.probe({ topic: 'order.placed', data: utf8Data(d), layout: 'utf8' }))) {
    return doctor(`Rejected the pretty-printed body (${answered(a)}) but accepted the same text compact:`, repair('reserialised_json'));
  }
  if (is2xx(await j.probe({ topic: 'order.placed', data: utf8Data(d), layout: 'ascii-pretty' }))) {
    return doctor(`Rejected the body with ${turkish} in it (${answered(a)}) but accepted the same layout with that text as \\u escapes:`, repair('wrong_encoding'));
  }
  return { cause: `Rejected a correct delivery whose body is pretty-printed UTF-8 (${answered(a)}).`, fix: `${repair('reserialised_json').detail} ${repair('wrong_encoding').detail}` };
}

/**
 * The battery (SPEC §10), in the order it runs. Adding a case is adding an entry; every case
 * is required for exit code 0, and only `latency` can end in a warning.
 */
export const checkCases: readonly CheckCase[] = [
  {
    id: 'valid', sends: 'a correct delivery of order.placed', guards: 'a receiver that rejects correct deliveries (wrong or stripped secret, re-serialised body)',
    expected: () => '2xx', requests: (d) => [{ topic: 'order.placed', data: d.placed }],
    judge: (j, d) => expect2xx(j, (a) => rejectedValid(j, a, d)),
  },
  {
    id: 'tampered-body', sends: 'a correct header, one byte of the body changed', guards: 'forged events: a body changed after signing is accepted',
    expected: () => '4xx', requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'tampered' }],
    judge: (j) => expect4xx(j, { cause: 'Accepted a body that does not match its signature (one digit of the amount was changed): anyone can forge events.', fix: verify }),
  },
  {
    id: 'wrong-secret', sends: 'signed with another secret', guards: 'a signature that is not checked against the endpoint secret',
    expected: () => '4xx', requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'wrong-secret' }],
    judge: (j) => expect4xx(j, { cause: 'Accepted a request signed with another secret: the signature is not compared with your secret.', fix: verify }),
  },
  {
    id: 'stale-timestamp', sends: 'signed correctly, t 10 minutes in the past', guards: 'replays of a captured request',
    expected: () => '4xx', requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'stale' }],
    judge: (j) => expect4xx(j, {
      cause: 'Accepted a correctly signed request whose t is 10 minutes old: the timestamp is not checked, so a captured request can be replayed forever.',
      fix: 'Reject a signature whose t is more than 300 s from now, in both directions (verifyWebhook does).',
    }),
  },
  {
    id: 'future-timestamp', sends: 'signed correctly, t 10 minutes in the future', guards: 'a timestamp check that only looks one way',
    expected: () => '4xx', requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'future' }],
    judge: (j) => expect4xx(j, {
      cause: 'Accepted a correctly signed request whose t is 10 minutes in the future: only old timestamps are refused (as in Stripe\'s SDKs).',
      fix: 'Check |now − t| ≤ 300 s, not only now − t ≤ 300 s (verifyWebhook does).',
    }),
  },
  {
    id: 'missing-signature', sends: 'no X-Service-Signature header', guards: 'verification skipped when the header is absent',
    expected: () => '4xx', requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'none' }],
    judge: (j) => expect4xx(j, { cause: 'Accepted a request without an X-Service-Signature header: verification is skipped when the header is missing.', fix: verify }),
  },
  {
    id: 'malformed-signature', sends: 'the header "garbage", then "t=abc,v1="', guards: 'a header parser that crashes or lets garbage through',
    expected: () => '4xx (never 5xx)',
    requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: { header: 'garbage' } }, { topic: 'order.placed', data: d.placed, signing: { header: 't=abc,v1=' } }],
    judge: (j) => expect4xx(j, { cause: 'Accepted a request whose X-Service-Signature cannot be parsed ("garbage" or "t=abc,v1=").', fix: verify }),
  },
  {
    id: 'rotation', sends: 'two v1: the first from an old secret, the second valid', guards: 'a receiver that compares only the first v1 (breaks during a secret rotation)',
    expected: () => '2xx', requests: (d) => [{ topic: 'order.placed', data: d.placed, signing: 'rotation' }],
    judge: (j) => expect2xx(j, (a) => ({
      cause: `Rejected a header whose first v1 is from another secret and whose second is valid (${answered(a)}): it compares only the first v1.`,
      fix: 'Accept the request when any v1 matches one of your secrets: during the 24 h after a rotation the header carries one v1 per live secret (verifyWebhook does).',
    })),
  },
  {
    id: 'duplicate', sends: 'the same delivery twice (same deliveryId, fresh signature)', guards: 'a delivery processed twice (delivery is at least once)', countsEffects: true,
    expected: (d) => (d.effects ? '2xx both times, processed once' : '2xx both times (processed once: not checked without an effects URL)'),
    requests: (d) => [{ topic: 'order.placed', data: d.placed }, { topic: 'order.placed', data: d.placed, again: true }],
    judge: async (j) => {
      const verdict = await expect2xx(j, (a, i) => ({
        cause: `Rejected the ${i === 0 ? 'first' : 'second'} copy of one delivery (${answered(a)}): a delivery already processed must still be acknowledged, or Sandbay retries it.`,
        fix: 'Dedupe on deliveryId: when you have processed it, answer 200 without processing it again (createDeliveryDeduper, or a unique key in your database).',
      }));
      if (!verdict.ok || !j.effects) return verdict;
      if ('error' in j.effects) return { ok: false, decisive: j.answers[1], cause: `Could not read the effects URL: ${j.effects.error}.`, fix: 'Serve GET <effects URL> with the count of processed events, as a bare number or {"count": n}.' };
      const rose = j.effects.after - j.effects.before;
      if (rose === 1) return verdict;
      return {
        ok: false, decisive: j.answers[1],
        cause: `The same delivery was processed ${rose === 2 ? 'twice' : `${rose} times`}: the effects count went from ${j.effects.before} to ${j.effects.after}.`,
        fix: 'Record each deliveryId you process (in the same transaction as its effect) and skip one you have seen; answer 200 either way.',
      };
    },
  },
  {
    id: 'out-of-order', sends: 'order.cancelled for an order, then its order.placed', guards: 'a receiver that depends on the order of deliveries',
    expected: () => '2xx both', requests: (d) => [{ topic: 'order.cancelled', data: d.cancelled }, { topic: 'order.placed', data: d.placed }],
    judge: (j) => expect2xx(j, (a, i) => ({
      cause: `Rejected ${i === 0 ? 'order.cancelled for an order it had not seen placed' : 'order.placed arriving after its order.cancelled'} (${answered(a)}): deliveries are not ordered (as with Stripe).`,
      fix: 'Acknowledge with 2xx and reconcile: store the event and apply it by occurredAt, or fetch the order\'s current state (GET /api/v1/orders/{id}).',
    })),
  },
  {
    id: 'unknown-topic', sends: 'a well-signed topic the receiver does not handle', guards: 'a new or unsubscribed topic that breaks the receiver',
    expected: () => '2xx (ignored)', requests: (d) => d.unhandled.map((u) => ({ topic: u.topic, data: u.data })),
    judge: (j, d) => expect2xx(j, (a, i) => ({
      cause: `Answered ${answered(a)} to ${d.unhandled[i].topic}, a topic it does not handle.`,
      fix: 'Answer 2xx to a topic you do not handle and ignore it: topics are added over time, and a 4xx or 5xx makes Sandbay retry it five times into the DLQ.',
    })),
  },
  {
    id: 'utf8-body', sends: 'Turkish text (İ ı ğ ü ş ö ç), pretty-printed', guards: 'a body decoded as Latin-1, or parsed and serialised again before verifying',
    expected: () => '2xx', requests: (d) => [{ topic: 'order.placed', data: utf8Data(d), layout: 'utf8-pretty' }],
    judge: (j, d) => expect2xx(j, (a) => rejectedUtf8(j, a, d)),
  },
  {
    id: 'large-body', sends: 'a valid 1 MiB body', guards: 'a body-size limit below what Sandbay sends',
    expected: () => '2xx', requests: (d) => [{ topic: 'order.placed', data: d.placed, bytes: largeBodyBytes }],
    judge: (j) => expect2xx(j, (a) => ({
      cause: `Rejected a valid 1 MiB body (${answered(a)}): its body-size limit is too low.`,
      fix: "Accept bodies up to 1 MiB on the webhook route (Express's default is 100 kB: express.raw({ type: 'application/json', limit: '1mb' })).",
    })),
  },
  {
    id: 'latency', sends: 'a correct delivery, timed', guards: 'slow answers (Sandbay gives up after 10 s and retries)',
    expected: () => 'an answer within 10 s (warns above 2 s)', requests: (d) => [{ topic: 'order.placed', data: d.placed }],
    judge: (j) => expectPromptAnswer(j, latencyWarnMs),
  },
  {
    id: 'redirect', sends: 'a correct delivery', guards: 'a redirect (Sandbay never follows one)',
    expected: () => 'not a 3xx', requests: (d) => [{ topic: 'order.placed', data: d.placed }],
    judge: (j) => {
      const a = j.answers[0];
      if (a.status !== null && (a.status < 300 || a.status >= 400)) return { ok: true, decisive: a };
      return expect2xx(j, () => ({}));
    },
  },
];
