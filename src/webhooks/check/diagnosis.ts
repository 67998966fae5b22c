import { JsonFloat, jsonForms, type JsonForm } from '../../shared/json-forms.ts';
import { secretMistakes } from '../../shared/receiver-doctor.ts';
import { diagnoseEcho, parseEcho, type EchoFinding } from '../../shared/receiver-echo.ts';
import { detectStack, fixFor, fixForFinding, stackFor, stackLabel, type ReceiverStack } from '../../shared/receiver-fixes.ts';
import type { CheckRequest, Layout } from './requests.ts';
import { answered, is2xx, type Answer, type Explanation, type Judging } from './verdicts.ts';
import { sandbayWords, type CheckWords } from './words.ts';

/**
 * Why a receiver rejected a correct delivery, told apart by probing: the same event signed with
 * the secret's usual mis-readings, and written in each language's serialiser form (the body a
 * re-serialising receiver verifies unchanged). A receiver's Sandbay-Echo, when it sends one,
 * says it directly. Every cause comes with the fix in the receiver's language.
 */

/** Text and a float that tell the serialisers apart: "/", <, &, non-ASCII, and 0.0 written with its point. */
export const probeData = (data: Record<string, unknown>) => ({ ...data, note: 'İstanbul/Kadıköy <b>&</b>', discount: new JsonFloat(0) });

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The receiver's stack from the headers it answered with. */
export const stackOf = (answers: readonly Answer[]) => answers.map((a) => detectStack(a.headers)).find(Boolean);

const inLanguage = (stack: ReceiverStack | undefined) => (stack ? ` (by its headers, a ${stackLabel(stack)} receiver)` : '');

/** The first probe (of those given) the receiver accepts. */
async function firstAccepted<T>(j: Judging, probes: readonly [T, CheckRequest][]): Promise<T | undefined> {
  for (const [what, request] of probes) if (is2xx(await j.probe(request))) return what;
  return undefined;
}

/** Which serialiser's form of the event the receiver accepts: the one it re-serialises with. */
function acceptedForm(j: Judging, topic: string, data: Record<string, unknown>): Promise<JsonForm | undefined> {
  const event = probeData(data);
  return firstAccepted(j, jsonForms.map((form) => [form, { topic, data: event, layout: { form: form.id } satisfies Layout }] as [JsonForm, CheckRequest]));
}

function reserialised(lead: string, form: JsonForm, stack: ReceiverStack | undefined): Explanation {
  const fixStack = stackFor(stack, form.language);
  return {
    cause: `${lead}: it parses the JSON and serialises it again before verifying — it accepted the same event only when the bytes were already what ${form.label} writes (${form.features}).`,
    fix: fixFor('rawBody', fixStack),
  };
}

/** The receiver's own account (Sandbay-Echo) of what it verified, when it answered with one. */
export async function fromEcho(j: Judging, a: Answer, lead: string, stack: ReceiverStack | undefined): Promise<Explanation | undefined> {
  const echo = parseEcho(a.headers, a.body);
  if (!echo) return undefined;
  const findings = await diagnoseEcho({ echo, sent: a.sent.body, timestamp: a.sent.timestamp, secrets: j.secrets });
  const f: EchoFinding = findings.find((x) => x.code !== 'echo_matches') ?? findings[0];
  const fix = f.code === 'echo_matches'
    ? 'Compare every v1 of the header (any may match), check |now − t| ≤ 300 s, and answer 2xx once verified.'
    : f.code === 'wrong_secret' ? secretMistakes.wrong_secret.detail
      : (fixForFinding(f.code, stack, f.form?.language) ?? '');
  return { cause: `${lead}: its Sandbay-Echo shows ${lowerFirst(f.title)}. ${f.detail}`, fix };
}

/**
 * The secret's usual mis-readings, as probes: for Sandbay's scheme (its key is the whole string as UTF-8)
 * the prefix stripped or the rest base64-decoded; for Standard Webhooks' (the base64 after whsec_,
 * decoded) the whole string as UTF-8, Sandbay's way. An ed25519 run has no secret to mis-read.
 */
function keyProbes(w: CheckWords, topic: string, data: Record<string, unknown>): [string, CheckRequest][] {
  if (!w.hmac) return [];
  if (w.standard) return [['the whole whsec_… string as UTF-8 bytes (Sandbay\'s own scheme), not the base64 after whsec_, decoded', { topic, data, signing: 'utf8-key' }]];
  return [
    ['the secret without its whsec_ prefix', { topic, data, signing: 'stripped-prefix' }],
    ['the base64-decoded part of the secret after whsec_', { topic, data, signing: 'decoded-key' }],
  ];
}

/** The `valid` case failed with an HTTP answer: the root cause every other case waits on. */
export async function rejectedCorrectDelivery(j: Judging, a: Answer, topic: string, data: Record<string, unknown>, w: CheckWords = sandbayWords): Promise<Explanation> {
  const stack = stackOf(j.answers);
  const lead = `Your receiver rejects correctly signed deliveries (${answered(a)})`;
  if (a.status === 404 || a.status === 405) {
    return {
      cause: `${lead}: there is no webhook route at this URL for a POST (${a.status}).`,
      fix: 'Check the path (and trailing slash) of the URL you registered, and that the route accepts POST.',
    };
  }
  // A Sandbay-Echo describes Sandbay's own signature; a Standard Webhooks run is told apart by probing alone.
  const echoed = w.standard ? undefined : await fromEcho(j, a, lead, stack);
  if (echoed) return echoed;
  const keyed = await firstAccepted(j, keyProbes(w, topic, data));
  if (keyed) {
    const fix = w.standard ? 'Key the HMAC with the base64 after whsec_, decoded (the Standard Webhooks libraries do; verifyWebhook with the request\'s headers does).' : fixFor('key', stack);
    return { cause: `${lead}: it keys the HMAC with ${keyed} — it accepted the same delivery signed that way.`, fix };
  }
  const form = await acceptedForm(j, topic, data);
  if (form) return reserialised(lead, form, stack);
  if (a.status !== null && a.status >= 500) {
    return {
      cause: `Your receiver answers ${answered(a)} to correctly signed deliveries, whatever their byte form or key: it fails before it can acknowledge one${inLanguage(stack)}.`,
      fix: 'Find the exception in the receiver\'s log. Verify first, answer 400 when verification fails and a 2xx once the event is stored: a 5xx makes Sandbay retry five times into the DLQ.',
    };
  }
  return {
    cause: w.standard
      ? `${lead}, in every byte form${w.hmac ? ' and with the secret read Sandbay\'s way too' : ''}: it rejects every request, so it verifies with another ${w.key}, another scheme, or refuses before verifying${inLanguage(stack)}.`
      : `${lead}, in every byte form and with every usual reading of the secret (prefix stripped, base64-decoded): it rejects every request, so it verifies with another secret or refuses before verifying${inLanguage(stack)}.`,
    fix: w.standard
      ? `Use the endpoint's current ${w.hmac ? 'whsec_… secret (or, for v1a, its whpk_… public key)' : 'whpk_… public key'}, and verify webhook-id, webhook-timestamp and the raw body as sent.`
      : `${secretMistakes.wrong_secret.detail} If it is the right one, answer with a Sandbay-Echo header (see the receivers docs) and run the check again: it then names the mistake itself.`,
  };
}

/** `utf8-body` failed while `valid` passed: the pretty-printed UTF-8 bytes are what it cannot verify. */
export async function rejectedUtf8Body(j: Judging, a: Answer, topic: string, data: Record<string, unknown>): Promise<Explanation> {
  const stack = stackOf(j.answers);
  const lead = `Rejected the pretty-printed UTF-8 body (${answered(a)})`;
  const echoed = await fromEcho(j, a, lead, stack);
  if (echoed) return echoed;
  const trimmed = await firstAccepted(j, [['trim', { topic, data, layout: 'utf8-pretty', trim: true }]] as const);
  if (trimmed) {
    return { cause: `${lead} but accepted the same body without its trailing newline: it trims the body before verifying.`, fix: fixFor('rawBody', stack) };
  }
  const ascii = await firstAccepted(j, [['ascii', { topic, data, layout: 'ascii-pretty' }]] as const);
  if (ascii) {
    return { cause: `${lead} but accepted the same layout with the non-ASCII text as \\u escapes: it decodes the body with the wrong character set (Latin-1) before verifying.`, fix: fixFor('encoding', stack) };
  }
  const form = await acceptedForm(j, topic, data);
  if (form) return reserialised(lead, form, stack);
  return { cause: `${lead}, and every other byte form of it.`, fix: `${fixFor('rawBody', stack)} ${fixFor('encoding', stack)}` };
}

export const smallerBodyBytes = 64 * 1024;

/** `large-body` failed: a size limit (413), or a body verified only in part (a 64 KiB one passes). */
export async function rejectedLargeBody(j: Judging, a: Answer, topic: string, data: Record<string, unknown>): Promise<Explanation> {
  const stack = stackOf(j.answers);
  if (a.status === 413) return { cause: `Rejected a valid 1 MiB body (${answered(a)}): its body-size limit is too low.`, fix: fixFor('bodyLimit', stack) };
  const echoed = await fromEcho(j, a, `Rejected a valid 1 MiB body (${answered(a)})`, stack);
  if (echoed) return echoed;
  if (await firstAccepted(j, [[true, { topic, data, bytes: smallerBodyBytes }]] as const)) {
    return {
      cause: `Rejected a valid 1 MiB body (${answered(a)}) but accepted a 64 KiB one, without a 413: it verifies only part of a large body.`,
      fix: `${fixFor('wholeBody', stack)} ${fixFor('bodyLimit', stack)}`,
    };
  }
  return { cause: `Rejected a valid 1 MiB body (${answered(a)}), and a 64 KiB one: its body-size limit is too low.`, fix: fixFor('bodyLimit', stack) };
}
