import { STATUS_CODES } from 'node:http';
import type { Attempt } from '../shared/api-types.ts';
import { fixtureOf, fixturesFormatVersion, type FixturesFile } from '../shared/fixtures.ts';
import type { DeliveryDetail } from './deliveries.ts';
import { attemptHeaders } from '../shared/delivery-headers.ts';

/** The recorded response body is its first 4 KiB (SPEC §5.3). */
const excerptBytes = 4096;

type Header = { name: string; value: string };
const headerList = (headers: Record<string, string>): Header[] =>
  Object.entries(headers).map(([name, value]) => ({ name, value }));

/**
 * The request as it went out: the delivery's bytes, its headers with this attempt's signature, and what the HTTP client
 * adds.
 */
function requestOf(d: DeliveryDetail, a: Attempt) {
  const url = new URL(a.url);
  const bodySize = Buffer.byteLength(d.rawBody);
  const headers = { host: url.host, ...attemptHeaders(d.topic, d.id, a), 'content-length': String(bodySize) };
  return {
    method: 'POST',
    url: a.url,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: headerList(headers),
    queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
    postData: { mimeType: 'application/json', text: d.rawBody },
    headersSize: -1,
    bodySize,
  };
}

/** The answer as recorded; a connection that failed has status 0 and the error (as Chrome writes such entries). */
function responseOf(a: Attempt) {
  const type = a.responseHeaders['content-type'] ?? '';
  const size = Buffer.byteLength(a.responseBody);
  return {
    status: a.responseStatus ?? 0,
    statusText: a.responseStatus ? (STATUS_CODES[a.responseStatus] ?? '') : '',
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: headerList(a.responseHeaders),
    content: {
      size,
      mimeType: type || 'x-unknown',
      text: a.responseBody,
      ...(size >= excerptBytes ? { comment: 'The first 4 KiB of the body' } : {}),
    },
    redirectURL: a.responseHeaders.location ?? '',
    headersSize: -1,
    bodySize: -1,
    ...(a.error ? { _error: a.error } : {}),
  };
}

/** One HAR 1.2 entry per attempt of a delivery. `startedDateTime` is the sandbox clock's, as the inspector shows it. */
function harEntries(d: DeliveryDetail) {
  return d.attempts.map((a) => ({
    startedDateTime: a.startedAt,
    time: a.durationMs,
    request: requestOf(d, a),
    response: responseOf(a),
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, send: 0, wait: a.durationMs, receive: 0, ssl: -1 },
    ...(a.error ? { comment: a.error } : {}),
    _sandbay: {
      deliveryId: d.id,
      eventId: d.eventId,
      topic: d.topic,
      endpointId: d.endpointId,
      attempt: a.number,
      trigger: a.trigger,
      status: d.status,
    },
  }));
}

/** A HAR 1.2 document as text, written as the deliveries arrive (one delivery's entries in memory at a time). */
export async function* harText(
  deliveries: AsyncIterable<DeliveryDetail>,
  creator: { name: string; version: string },
): AsyncGenerator<string> {
  yield `{"log":{"version":"1.2","creator":${JSON.stringify(creator)},"pages":[],"entries":[`;
  let first = true;
  for await (const d of deliveries) {
    for (const entry of harEntries(d)) {
      yield `${first ? '' : ','}\n${JSON.stringify(entry)}`;
      first = false;
    }
  }
  yield '\n]}}\n';
}

/** A fixtures file as text, written as the deliveries arrive. */
export async function* fixturesText(
  deliveries: AsyncIterable<DeliveryDetail>,
  source: FixturesFile['source'],
  recordedAt: string,
): AsyncGenerator<string> {
  const head: Omit<FixturesFile, 'fixtures'> = { sandbayFixtures: fixturesFormatVersion, recordedAt, source };
  yield `${JSON.stringify(head).slice(0, -1)},"fixtures":[`;
  let first = true;
  for await (const d of deliveries) {
    yield `${first ? '' : ','}\n${JSON.stringify(fixtureOf(d))}`;
    first = false;
  }
  yield '\n]}\n';
}
