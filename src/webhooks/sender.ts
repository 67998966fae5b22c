import { Agent, errors as undiciErrors, request } from 'undici';
import { policyConnector } from './outbound/connector.ts';
import { BlockedByPolicy, OutboundPolicy } from './outbound/policy.ts';

export const responseExcerptBytes = 4096;

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  allowInsecureTls: boolean;
}

export interface SendOutcome {
  ok: boolean;
  status: number | null;
  headers: Record<string, string>;
  /** The first 4 KiB of the response body. */
  body: string;
  error: string | null;
  durationMs: number;
}

/**
 * POSTs one attempt with undici: keep-alive, a hard timeout for the whole exchange, no
 * redirects followed, and at most 4 KiB of the response read (a receiver flooding a huge
 * body is cut off there). Never throws: every failure becomes an outcome.
 */
export class Sender {
  private readonly agent: Agent;
  private readonly insecureAgent: Agent;
  /** This server's own catchers, reached directly (OutboundPolicy.selfRoute). */
  private readonly selfAgent: Agent;

  constructor(
    private readonly timeoutMs: number,
    private readonly policy = new OutboundPolicy({ shared: false }),
  ) {
    const options = { keepAliveTimeout: 10_000, connections: 64, headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
    // On a laptop the plain connector (loopback receivers are the point); shared, every connection is vetted.
    const connect = (tls: { rejectUnauthorized?: boolean }) =>
      policy.vetsConnections ? policyConnector(policy, tls) : tls;
    this.agent = new Agent({ ...options, connect: connect({}) });
    this.insecureAgent = new Agent({ ...options, connect: connect({ rejectUnauthorized: false }) });
    this.selfAgent = new Agent(options);
  }

  async send(req: SendRequest): Promise<SendOutcome> {
    const started = performance.now();
    const signal = AbortSignal.timeout(this.timeoutMs);
    const finish = (fields: Omit<SendOutcome, 'durationMs' | 'ok'>): SendOutcome => ({
      ...fields,
      ok: fields.error === null && fields.status !== null && fields.status >= 200 && fields.status < 300,
      durationMs: Math.round(performance.now() - started),
    });
    try {
      // undici's request() never follows redirects (that takes an interceptor), as SPEC §5.3 wants.
      const own = this.policy.selfRoute(req.url);
      const res = await request(own ?? req.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal,
        dispatcher: own ? this.selfAgent : req.allowInsecureTls ? this.insecureAgent : this.agent,
      });
      const headers = flattenHeaders(res.headers);
      const body = await readExcerpt(res.body);
      const redirect = res.statusCode >= 300 && res.statusCode < 400;
      return finish({
        status: res.statusCode,
        headers,
        body,
        error: redirect ? `redirect not followed${headers.location ? ` (Location: ${headers.location})` : ''}` : null,
      });
    } catch (err) {
      return finish({ status: null, headers: {}, body: '', error: describeError(err, this.timeoutMs) });
    }
  }

  /**
   * A GET whose answer is read up to `maxBytes` within `timeoutMs` (an effects URL's count): a longer
   * answer is an error, read no further. Through the same policy as every delivery.
   */
  async getSmall(url: string, maxBytes: number, timeoutMs: number): Promise<{ status: number; text: string }> {
    const signal = AbortSignal.timeout(timeoutMs);
    let res;
    try {
      res = await request(url, {
        method: 'GET',
        signal,
        dispatcher: this.agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      throw new Error(describeError(err, timeoutMs));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > maxBytes) throw new Error(`answered more than ${maxBytes} bytes; it should answer a count`);
        chunks.push(chunk);
      }
    } catch (err) {
      throw new Error(
        (err as Error).message.startsWith('answered more') ? (err as Error).message : describeError(err, timeoutMs),
      );
    } finally {
      res.body.destroy();
    }
    return { status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') };
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.insecureAgent.close(), this.selfAgent.close()]);
  }
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= responseExcerptBytes) break; // leaving the loop destroys the stream
    }
  } catch {
    // a body that breaks off midway still tells us its status; keep what arrived
  } finally {
    body.destroy();
  }
  return storable(Buffer.concat(chunks).subarray(0, responseExcerptBytes).toString('utf8'));
}

// PostgreSQL text cannot hold NUL; a binary response body must not break the attempt record.
const storable = (s: string) => s.replace(/\u0000/g, '\uFFFD');

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) out[k.toLowerCase()] = storable(Array.isArray(v) ? v.join(', ') : v);
  return out;
}

function describeError(err: unknown, timeoutMs: number): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const blocked = [err, e?.cause].find((x) => x instanceof BlockedByPolicy);
  if (blocked) return (blocked as BlockedByPolicy).message;
  const code = e?.code ?? e?.cause?.code;
  if (
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError
  ) {
    return `timeout: no complete response within ${timeoutMs / 1000} s`;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'CERT_HAS_EXPIRED':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS certificate rejected (${code}); set allowInsecureTls on the endpoint for a self-signed receiver`;
    default:
      return e?.message ? `${code ? `${code}: ` : ''}${e.message}` : String(err);
  }
}
