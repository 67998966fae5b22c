import { diagnoseEcho, parseEcho } from '../shared/receiver-echo.ts';
import { detectStack, fixForFinding } from '../shared/receiver-fixes.ts';
import { parseSignatureHeader } from '../shared/signature.ts';
import type { Client } from './client.ts';

interface DeliveryAttempt {
  number: number;
  signatureHeader: string;
  responseStatus: number | null;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

/**
 * `listen --forward-to` records the bytes it forwarded beside the receiver's answer; when that
 * answer carries a Sandbay-Echo of what the receiver verified, the doctor compares the two and says
 * what went wrong, in the receiver's language. Undefined when the answer has no echo.
 */
export async function forwardedDiagnosis(
  client: Client,
  deliveryId: string,
  attempt: number,
  secrets: readonly string[],
): Promise<string[] | undefined> {
  const delivery = await client.request<{ rawBody: string; attempts: DeliveryAttempt[] }>(
    'GET',
    `/api/v1/webhooks/deliveries/${encodeURIComponent(deliveryId)}`,
  );
  const answered = delivery.attempts.find((a) => a.number === attempt);
  if (!answered) return undefined;
  const echo = parseEcho(answered.responseHeaders, answered.responseBody);
  if (!echo) return undefined;
  const timestamp = parseSignatureHeader(answered.signatureHeader)?.timestamp ?? 0;
  const findings = await diagnoseEcho({ echo, sent: delivery.rawBody, timestamp, secrets });
  const stack = detectStack(answered.responseHeaders);
  return findings.flatMap((f) => {
    const fix = fixForFinding(f.code, stack, f.form?.language);
    return [`     doctor: ${f.title}. ${f.detail}`, ...(fix ? [`     fix:    ${fix}`] : [])];
  });
}
