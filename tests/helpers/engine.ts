import { after, before } from 'node:test';
import { assertDocumented, bodyOf } from './openapi-contract.ts';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/server/start.ts';
import { createTestDatabase, testDriver, type TestDatabase } from './postgres.ts';

/**
 * Starts one engine for the test file (port 0, --memory) and closes it after. With
 * SANDBAY_TEST_DRIVER=pg it runs on a database of its own on the test run's PostgreSQL server.
 * Use inside a test file at top level: `const engine = useEngine();` then `engine.url`.
 */
export function useEngine(options: SandboxOptions = {}): {
  readonly url: string;
  readonly running: RunningSandbox;
  readonly databaseUrl: string | undefined;
} {
  let running: RunningSandbox | undefined;
  let database: TestDatabase | undefined;
  before(async () => {
    if (testDriver() === 'pg') database = await createTestDatabase();
    running = await startSandbox({ memory: true, port: 0, logRequests: false, databaseUrl: database?.url, ...options });
  });
  after(async () => {
    await running?.close();
    await database?.drop();
  });
  return {
    get url() {
      if (!running) throw new Error('engine not started yet (use it inside a test)');
      return running.url;
    },
    get running() {
      if (!running) throw new Error('engine not started yet (use it inside a test)');
      return running;
    },
    /** The PostgreSQL database the engine runs on (undefined on PGlite). */
    get databaseUrl() {
      return database?.url;
    },
  };
}

export interface TestSandbox {
  id: string;
  token: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  webhookTestSecret: string;
  /** fetch against the engine with this sandbox's bearer token and JSON handling. */
  api(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string>; faultInjected?: boolean },
  ): Promise<ApiResponse>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** One request to the engine; the response must be one its OpenAPI document describes (openapi-contract.ts). */
export async function call(
  url: string,
  path: string,
  init: {
    method?: string;
    body?: unknown;
    headers?: Record<string, string>;
    token?: string;
    faultInjected?: boolean;
  } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const method = init.method ?? (body === undefined ? 'GET' : 'POST');
  const res = await fetch(url + path, { method, headers, body, redirect: 'manual' });
  const parsed = bodyOf(res.headers.get('content-type'), await res.text());
  await assertDocumented(url, {
    method,
    path,
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: parsed,
    faultInjected: init.faultInjected,
  });
  return { status: res.status, headers: res.headers, body: parsed };
}

/**
 * Creates a fresh sandbox through the public API; each test makes its own. On a shared server
 * the operator does it: pass the admin key.
 */
export async function createSandbox(url: string, name?: string, adminKey?: string): Promise<TestSandbox> {
  const res = await call(url, '/api/v1/sandboxes', {
    method: 'POST',
    body: name ? { name } : undefined,
    token: adminKey,
  });
  if (res.status !== 201) throw new Error(`sandbox creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return sandboxFrom(url, res.body);
}

/** The sandbox a 201 made (a creation's or an import's body), acting on `url` with its own token. */
export function sandboxFrom(url: string, body: any): TestSandbox {
  const { sandbox, credentials, webhookTestSecret } = body;
  const token = credentials.accessToken as string;
  return {
    id: sandbox.id,
    token,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    refreshToken: credentials.refreshToken,
    webhookTestSecret,
    api: (path, init = {}) => call(url, path, { ...init, token }),
  };
}

/** Asserts the SPEC §2 problem shape and returns the body. */
export function problem(res: ApiResponse, status: number, code: string): any {
  const ok =
    res.status === status &&
    res.headers.get('content-type')?.startsWith('application/problem+json') &&
    res.body?.code === code;
  if (!ok)
    throw new Error(
      `expected ${status} ${code}, got ${res.status} ${res.headers.get('content-type')} ${JSON.stringify(res.body)}`,
    );
  for (const field of ['type', 'title', 'status', 'detail', 'code']) {
    if (res.body[field] === undefined) throw new Error(`problem body lacks ${field}: ${JSON.stringify(res.body)}`);
  }
  if (res.body.status !== status) throw new Error('problem status differs from the HTTP status');
  return res.body;
}
