import type { Problem } from '../../shared/api-types.ts';

/** A failed API call, carrying the problem+json the server sent (or one made up for network errors). */
export class ApiProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail || problem.title);
  }

  get status(): number {
    return this.problem.status;
  }

  get code(): string {
    return this.problem.code;
  }

  /** The message for one field (by JSON Pointer prefix), for inline form errors. */
  fieldError(pointer: string): string | undefined {
    return this.problem.errors?.find((e) => e.path === pointer || e.path.startsWith(`${pointer}/`))?.message;
  }
}

export interface ApiConfig {
  apiBase: string;
  adminKey: string | null;
  sandboxId: string | null;
  /** Called on a 401 from the API (a shared server's session expired or was revoked). */
  onUnauthorized?: (problem: ApiProblem) => void;
  /** Told of every answer that says whether Sandbay and its database are up (the outage banner). */
  onHealth?: (seen: { outage?: 'database' | 'storage' | 'server'; method: string }) => void;
}

const config: ApiConfig = { apiBase: '', adminKey: null, sandboxId: null };

/**
 * Sets who the client calls as: on loopback every request carries the admin key and the sandbox
 * (SPEC §7); on a shared server the session cookie speaks for one sandbox (SPEC §9).
 */
export function configureApi(next: Partial<ApiConfig>): void {
  Object.assign(config, next);
}

const networkProblem = (err: unknown): Problem => ({
  type: 'about:blank',
  title: 'Network error',
  status: 0,
  code: 'network_error',
  detail: `Sandbay did not answer (${(err as Error)?.message ?? err}). Is it still running?`,
});

/** One JSON request; throws ApiProblem on any non-2xx answer. */
async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  options: { sandbox?: boolean; form?: URLSearchParams } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // A form post is OAuth's token endpoint, where the client authenticates itself, not the admin.
  if (config.adminKey && !options.form) headers.authorization = `Bearer ${config.adminKey}`;
  if (options.sandbox !== false && config.sandboxId) headers['sandbay-sandbox'] = config.sandboxId;
  let payload: BodyInit | undefined;
  if (options.form) {
    payload = options.form;
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(`${config.apiBase}${path}`, { method, headers, body: payload, credentials: 'same-origin' });
  } catch (err) {
    config.onHealth?.({ outage: 'server', method });
    throw new ApiProblem(networkProblem(err));
  }
  // 503 database_unavailable and 507 insufficient_storage (SPEC §9); any other answer means both are up.
  config.onHealth?.({ outage: res.status === 503 ? 'database' : res.status === 507 ? 'storage' : undefined, method });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const p = parsed as Partial<Problem> | undefined;
    const problem = new ApiProblem({
      type: p?.type ?? 'about:blank',
      title: p?.title ?? res.statusText,
      status: res.status,
      code: p?.code ?? `http_${res.status}`,
      detail: p?.detail ?? (p as { error_description?: string } | undefined)?.error_description ?? `HTTP ${res.status}`,
      errors: p?.errors,
    });
    // Signing in answers its own 401s (wrong credentials), and OAuth's are about the client, not the session.
    if (res.status === 401 && !options.form && !path.startsWith('/api/v1/session')) config.onUnauthorized?.(problem);
    throw problem;
  }
  return parsed as T;
}

/**
 * A request whose answer is a file (a sandbox export, a HAR) or whose body is one (an import):
 * the same credentials as `request`, the Response as it is. Throws ApiProblem on a non-2xx answer.
 */
export async function fileRequest(method: string, path: string, body?: Blob, contentType?: string): Promise<Response> {
  const headers: Record<string, string> = {};
  if (config.adminKey) headers.authorization = `Bearer ${config.adminKey}`;
  if (config.sandboxId) headers['sandbay-sandbox'] = config.sandboxId;
  if (contentType) headers['content-type'] = contentType;
  let res: Response;
  try {
    res = await fetch(`${config.apiBase}${path}`, { method, headers, body, credentials: 'same-origin' });
  } catch (err) {
    throw new ApiProblem(networkProblem(err));
  }
  if (res.ok) return res;
  const p = (await res.json().catch(() => undefined)) as Partial<Problem> | undefined;
  throw new ApiProblem({
    type: p?.type ?? 'about:blank',
    title: p?.title ?? res.statusText,
    status: res.status,
    code: p?.code ?? `http_${res.status}`,
    detail: p?.detail ?? `HTTP ${res.status}`,
  });
}

/** Saves an answer's body as a file the browser downloads, named as the server's Content-Disposition says. */
export async function saveDownload(res: Response, fallbackName: string): Promise<void> {
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const api = {
  get: <T>(path: string, options?: { sandbox?: boolean }) => request<T>('GET', path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: { sandbox?: boolean }) =>
    request<T>('POST', path, body ?? {}, options),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, body ?? {}),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  delete: (path: string) => request<void>('DELETE', path),
  form: <T>(path: string, form: URLSearchParams) => request<T>('POST', path, undefined, { sandbox: false, form }),
};

/** A query string from the set values of `params`. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
