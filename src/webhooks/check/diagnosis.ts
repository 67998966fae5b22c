import { JsonFloat, jsonForms, type JsonForm } from '../../shared/json-forms.ts';
import { secretMistakes } from '../../shared/receiver-doctor.ts';
import { diagnoseEcho, parseEcho, type EchoFinding } from '../../shared/receiver-echo.ts';
import {
  detectStack,
  fixFor,
  fixForFinding,
  stackFor,
  stackLabel,
  type ReceiverStack,
} from '../../shared/receiver-fixes.ts';
import type { CheckRequest, Layout, Signing } from './requests.ts';
import { answered, is2xx, type Answer, type Explanation, type Judging } from './verdicts.ts';
import { sandbayWords, type CheckWords } from './words.ts';

/**
 * Why a receiver rejected a correct delivery, told apart by probing: the same event signed with
 * the secret's usual mis-readings, and written in each language's serialiser form (the body a
 * re-serialising receiver verifies unchanged). A receiver's Sandbay-Echo, when it sends one,
 * says it directly. Every cause comes with the fix in the receiver's language.
 */

/** Text and a float that tell the serialisers apart: "/", <, &, non-ASCII, and 0.0 written with its point. */
const probeData = (data: Record<string, unknown>) => ({
  ...data,
  note: 'İstanbul/Kadıköy <b>&</b>',
  discount: new JsonFloat(0),
});

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The receiver's stack from the headers it answered with. */
const stackOf = (answers: readonly Answer[]) => answers.map((a) => detectStack(a.headers)).find(Boolean);

const inLanguage = (stack: ReceiverStack | undefined) =>
  stack ? ` (by its headers, a ${stackLabel(stack)} receiver)` : '';

/** The first probe (of those given) the receiver accepts. */
async function firstAccepted<T>(j: Judging, probes: readonly [T, CheckRequest][]): Promise<T | undefined> {
  for (const [what, request] of probes) if (is2xx(await j.probe(request))) return what;
  return undefined;
}

/** Which serialiser's form of the event the receiver accepts: the one it re-serialises with. */
function acceptedForm(j: Judging, topic: string, data: Record<string, unknown>): Promise<JsonForm | undefined> {
  const event = probeData(data);
  return firstAccepted(
    j,
    jsonForms.map(
      (form) => [form, { topic, data: event, layout: { form: form.id } satisfies Layout }] as [JsonForm, CheckRequest],
    ),
  );
}

function reserialised(lead: string, form: JsonForm, stack: ReceiverStack | undefined): Explanation {
  const fixStack = stackFor(stack, form.language);
  return {
    cause: `${lead}: it parses the JSON and serialises it again before verifying — it accepted the same event only when the bytes were already what ${form.label} writes (${form.features}).`,
    fix: fixFor('rawBody', fixStack),
  };
}

/** The receiver's own account (Sandbay-Echo) of what it verified, when it answered with one. */
async function fromEcho(
  j: Judging,
  a: Answer,
  lead: string,
  stack: ReceiverStack | undefined,
): Promise<Explanation | undefined> {
  const echo = parseEcho(a.headers, a.body);
  if (!echo) return undefined;
  const findings = await diagnoseEcho({ echo, sent: a.sent.body, timestamp: a.sent.timestamp, secrets: j.secrets });
  const f: EchoFinding = findings.find((x) => x.code !== 'echo_matches') ?? findings[0];
  const fix =
    f.code === 'echo_matches'
      ? 'Compare every v1 of the header (any may match), check |now − t| ≤ 300 s, and answer 2xx once verified.'
      : f.code === 'wrong_secret'
        ? secretMistakes.wrong_secret.detail
        : (fixForFinding(f.code, stack, f.form?.language) ?? '');
  return { cause: `${lead}: its Sandbay-Echo shows ${lowerFirst(f.title)}. ${f.detail}`, fix };
}

/** A probe for one likely mistake: the request a receiver making it accepts, and what to tell it. */
interface MistakeProbe {
  cause: string;
  fix: string;
  request: CheckRequest;
}

const standardKeyFix =
  "Key the HMAC with the base64 after whsec_, decoded (the Standard Webhooks libraries do; verifyWebhook with the request's headers does).";

/**
 * The usual mistakes of a receiver, as probes. Sandbay's scheme (its key is the whole string as UTF-8):
 * the prefix stripped, or the rest base64-decoded. Standard Webhooks' (the base64 after whsec_, decoded):
 * the whole string as UTF-8 (Sandbay's way), the base64 left undecoded, the webhook-id left out of the
 * signed string; and where the endpoint signs v1a alone, checking it as an HMAC of the secret.
 */
function mistakeProbes(
  w: CheckWords,
  topic: string,
  data: Record<string, unknown>,
  stack: ReceiverStack | undefined,
): MistakeProbe[] {
  const keyed = (how: string, fix: string, signing: Signing): MistakeProbe => ({
    cause: `it keys the HMAC with ${how} — it accepted the same delivery signed that way.`,
    fix,
    request: { topic, data, signing },
  });
  if (!w.standard) {
    return [
      keyed('the secret without its whsec_ prefix', fixFor('key', stack), 'stripped-prefix'),
      keyed('the base64-decoded part of the secret after whsec_', fixFor('key', stack), 'decoded-key'),
    ];
  }
  const noId: MistakeProbe = {
    cause:
      'it signs "<webhook-timestamp>.<body>", without the webhook-id — it accepted the same delivery signed that way. Standard Webhooks signs "<webhook-id>.<webhook-timestamp>.<body>".',
    fix: 'Verify webhook-id + "." + webhook-timestamp + "." + the raw body (the Standard Webhooks libraries do; verifyWebhook with the request\'s headers does).',
    request: { topic, data, signing: 'no-id' },
  };
  if (!w.hmac) {
    return [
      {
        cause:
          "it checks the signature as an HMAC of the whsec_… secret (v1), but this endpoint signs v1a alone: an ed25519 signature, made with the endpoint's private key — it accepted the same delivery carrying an HMAC instead.",
        fix: 'Verify v1a with the endpoint\'s whpk_… public key: ed25519 over webhook-id + "." + webhook-timestamp + "." + the raw body (Node: crypto.verify(null, signed, publicKey, signature); Go: ed25519.Verify; Python: cryptography\'s Ed25519PublicKey.verify; PHP: sodium_crypto_sign_verify_detached). The whsec_ secret signs v1 only: add standard-webhooks to the endpoint\'s schemes to get it.',
        request: { topic, data, signing: 'hmac-for-v1a' },
      },
      noId,
    ];
  }
  return [
    keyed(
      "the whole whsec_… string as UTF-8 bytes (Sandbay's own scheme), not the base64 after whsec_, decoded",
      standardKeyFix,
      'utf8-key',
    ),
    keyed(
      'the base64 text after whsec_ as it is (its UTF-8 bytes), not base64-decoded',
      standardKeyFix,
      'undecoded-key',
    ),
    noId,
  ];
}

/** The `valid` case failed with an HTTP answer: the root cause every other case waits on. */
export async function rejectedCorrectDelivery(
  j: Judging,
  a: Answer,
  topic: string,
  data: Record<string, unknown>,
  w: CheckWords = sandbayWords,
): Promise<Explanation> {
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
  const mistake = await firstAccepted(
    j,
    mistakeProbes(w, topic, data, stack).map((p) => [p, p.request] as [MistakeProbe, CheckRequest]),
  );
  if (mistake) return { cause: `${lead}: ${mistake.cause}`, fix: mistake.fix };
  const form = await acceptedForm(j, topic, data);
  if (form) return reserialised(lead, form, stack);
  if (a.status !== null && a.status >= 500) {
    return {
      cause: `Your receiver answers ${answered(a)} to correctly signed deliveries, whatever their byte form or key: it fails before it can acknowledge one${inLanguage(stack)}.`,
      fix: "Find the exception in the receiver's log. Verify first, answer 400 when verification fails and a 2xx once the event is stored: a 5xx makes Sandbay retry five times into the DLQ.",
    };
  }
  return {
    cause: w.standard
      ? `${lead}, in every byte form and with every usual mistake of a receiver (${w.hmac ? 'the secret as UTF-8 text or its base64 undecoded, ' : 'v1a checked as an HMAC, '}the webhook-id left out of the signed string): it rejects every request, so it verifies with another ${w.key}, another scheme, or refuses before verifying${inLanguage(stack)}.`
      : `${lead}, in every byte form and with every usual reading of the secret (prefix stripped, base64-decoded): it rejects every request, so it verifies with another secret or refuses before verifying${inLanguage(stack)}.`,
    fix: w.standard
      ? `Use the endpoint's current ${w.hmac ? 'whsec_… secret (or, for v1a, its whpk_… public key)' : 'whpk_… public key'}, and verify webhook-id, webhook-timestamp and the raw body as sent.`
      : `${secretMistakes.wrong_secret.detail} If it is the right one, answer with a Sandbay-Echo header (see the receivers docs) and run the check again: it then names the mistake itself.`,
  };
}

/** `utf8-body` failed while `valid` passed: the pretty-printed UTF-8 bytes are what it cannot verify. */
export async function rejectedUtf8Body(
  j: Judging,
  a: Answer,
  topic: string,
  data: Record<string, unknown>,
): Promise<Explanation> {
  const stack = stackOf(j.answers);
  const lead = `Rejected the pretty-printed UTF-8 body (${answered(a)})`;
  const echoed = await fromEcho(j, a, lead, stack);
  if (echoed) return echoed;
  const trimmed = await firstAccepted(j, [['trim', { topic, data, layout: 'utf8-pretty', trim: true }]] as const);
  if (trimmed) {
    return {
      cause: `${lead} but accepted the same body without its trailing newline: it trims the body before verifying.`,
      fix: fixFor('rawBody', stack),
    };
  }
  const ascii = await firstAccepted(j, [['ascii', { topic, data, layout: 'ascii-pretty' }]] as const);
  if (ascii) {
    return {
      cause: `${lead} but accepted the same layout with the non-ASCII text as \\u escapes: it decodes the body with the wrong character set (Latin-1) before verifying.`,
      fix: fixFor('encoding', stack),
    };
  }
  const form = await acceptedForm(j, topic, data);
  if (form) return reserialised(lead, form, stack);
  return {
    cause: `${lead}, and every other byte form of it.`,
    fix: `${fixFor('rawBody', stack)} ${fixFor('encoding', stack)}`,
  };
}

const smallerBodyBytes = 64 * 1024;

/** `large-body` failed: a size limit (413), or a body verified only in part (a 64 KiB one passes). */
export async function rejectedLargeBody(
  j: Judging,
  a: Answer,
  topic: string,
  data: Record<string, unknown>,
): Promise<Explanation> {
  const stack = stackOf(j.answers);
  if (a.status === 413)
    return {
      cause: `Rejected a valid 1 MiB body (${answered(a)}): its body-size limit is too low.`,
      fix: fixFor('bodyLimit', stack),
    };
  const echoed = await fromEcho(j, a, `Rejected a valid 1 MiB body (${answered(a)})`, stack);
  if (echoed) return echoed;
  if (await firstAccepted(j, [[true, { topic, data, bytes: smallerBodyBytes }]] as const)) {
    return {
      cause: `Rejected a valid 1 MiB body (${answered(a)}) but accepted a 64 KiB one, without a 413: it verifies only part of a large body.`,
      fix: `${fixFor('wholeBody', stack)} ${fixFor('bodyLimit', stack)}`,
    };
  }
  return {
    cause: `Rejected a valid 1 MiB body (${answered(a)}), and a 64 KiB one: its body-size limit is too low.`,
    fix: fixFor('bodyLimit', stack),
  };
}
