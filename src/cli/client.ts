import { locateServer, type LocatedServer } from '../server/locate-server.ts';
import { CliError } from './errors.ts';

/** The connection flags every API command takes (SPEC §6), with their environment fallbacks. */
export interface ConnectionFlags {
  url?: string;
  token?: string;
  sandbox?: string;
  json?: boolean;
  /** Seconds to wait for each answer (SANDBAY_TIMEOUT; default 30). */
  timeout?: string;
  /**
   * The data dir the running Sandbay was started with (SANDBAY_DATA_DIR): its server.json, or the registry, names it.
   */
  dataDir?: string;
}

export interface Connection {
  url: string;
  /** A sandbox access token, or the admin key (then `sandbox` names the sandbox acted on). */
  token?: string;
  sandbox?: string;
  /** The token is the admin key from the discovery file. */
  admin: boolean;
  /** How long one request may take, answer included, before the CLI gives up. */
  timeoutMs: number;
  /** With no server found: where the CLI looked (named when the default URL cannot be reached). */
  searched?: LocatedServer['searched'];
}

const defaultTimeoutSeconds = 30;

function timeoutMsOf(value: string | undefined): number {
  if (value === undefined) return defaultTimeoutSeconds * 1000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400)
    throw new CliError(`--timeout takes seconds between 0 and 86400, not ${value}`);
  return Math.round(seconds * 1000);
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    throw new CliError(`not a URL: ${url}`);
  }
};

/**
 * Resolves where and as whom to connect: flags, then SANDBAY_* variables, then the server this
 * machine runs (locateServer: a data dir's server.json or the registry of running servers). Its
 * admin key is only sent to the URL it was registered for.
 */
export function resolveConnection(flags: ConnectionFlags, env = process.env): Connection {
  const located = locateServer({ url: flags.url, dataDir: flags.dataDir }, env);
  const url = located.url.replace(/\/+$/, '');
  originOf(url); // a --url that is not one fails here, in one line, before any request
  const sandbox = flags.sandbox ?? (env.SANDBAY_SANDBOX || undefined);
  const token = flags.token ?? (env.SANDBAY_TOKEN || undefined);
  const timeoutMs = timeoutMsOf(flags.timeout ?? (env.SANDBAY_TIMEOUT || undefined));
  const searched = located.searched;
  if (token) return { url, token, sandbox, admin: false, timeoutMs, searched };
  return { url, token: located.adminKey, sandbox, admin: Boolean(located.adminKey), timeoutMs, searched };
}

/**
 * The one-line hint for an unreachable Sandbay: with no server found, where the CLI looked and how to point it
 * elsewhere.
 */
export function unreachableMessage(connection: Pick<Connection, 'url' | 'searched'>): string {
  const base = `cannot reach Sandbay at ${connection.url} — is it running? (sandbay serve)`;
  const searched = connection.searched;
  if (!searched) return base;
  if (searched.dataDirGiven)
    return `${base}; no Sandbay started with --data-dir ${searched.dataDir} runs (no server.json there, none in the registry ${searched.registry}): pass the data dir it was started with, or --url`;
  return `${base}; no running Sandbay in the registry ${searched.registry} and no server.json in ${searched.dataDir}: pass --url, or --data-dir DIR (or SANDBAY_DATA_DIR)`;
}

/** Problems whose API wording (headers, endpoints) has a better CLI equivalent. */
const cliHints: Record<string, string> = {
  missing_token:
    'no token: pass --token TOKEN or set SANDBAY_TOKEN (`sandbay token --new` makes a sandbox and prints one)',
  sandbox_required: 'with the admin key, name a sandbox: --sandbox ID or SANDBAY_SANDBOX',
  sandbox_mismatch:
    "--sandbox (or SANDBAY_SANDBOX) names another sandbox than the token's: a token acts on its own sandbox only; drop --sandbox, or use that sandbox's token",
};

/** What went wrong in one line: a problem's detail, an OAuth error's description, or the status. */
export function describeFailure(status: number, body: unknown): string {
  const b = body as { detail?: string; code?: string; error?: string; error_description?: string } | undefined;
  if (b?.code && cliHints[b.code]) return cliHints[b.code];
  // The API points at its own route; on the command line the list is one verb away.
  // The DLQ replays dead deliveries only; the API names its route, the CLI its verb.
  if (b?.code === 'delivery_not_dead' && b.detail)
    return `${b.detail.replace(/ To attempt it anyway: POST \S+ \((sandbay resend \S+)\)\.$/, ' `$1` attempts it anyway.')} (delivery_not_dead)`;
  if (b?.code === 'unknown_topic' && b.detail)
    return `${b.detail.replace(/\s*See GET \/api\/v1\/webhooks\/topics\.$/, '')} \`sandbay topics\` lists all 33. (unknown_topic)`;
  if (b?.detail) return b.code ? `${b.detail} (${b.code})` : b.detail;
  if (b?.error) return `${b.error_description ?? b.error} (${b.error})`;
  return `HTTP ${status} from Sandbay`;
}

export interface RequestOptions {
  body?: unknown;
  /** Send the form-encoded body /oauth/token expects. */
  form?: Record<string, string>;
  /** Do not send the token (sandbox creation, OAuth). */
  anonymous?: boolean;
}

/** A small HTTP client for the Sandbay API: JSON in and out, every failure a one-line CliError. */
export class Client {
  constructor(readonly connection: Connection) {}

  get url(): string {
    return this.connection.url;
  }

  /** Headers that authenticate as the connection's token (and sandbox, with the admin key). */
  authHeaders(): Record<string, string> {
    const { token, sandbox } = this.connection;
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (token && sandbox) headers['sandbay-sandbox'] = sandbox;
    return headers;
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(options.anonymous ? {} : this.authHeaders()),
    };
    let body: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    // One deadline for the whole exchange: a server may send its headers and then stall.
    const signal = AbortSignal.timeout(this.connection.timeoutMs);
    const res = await this.fetch(path, { method, headers, body, signal });
    const text = await res.text().catch((err: Error) => {
      throw err.name === 'TimeoutError'
        ? this.timedOut(method, path)
        : new CliError(`the connection to ${this.url} broke while reading the answer`);
    });
    let parsed: unknown;
    if (text && /json/.test(res.headers.get('content-type') ?? '')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new CliError(`unreadable JSON from ${this.url}${path} (HTTP ${res.status})`);
      }
    } else if (text) {
      throw new CliError(
        `${this.url} answered HTTP ${res.status} with ${res.headers.get('content-type') ?? 'no content type'} — is it a Sandbay?`,
      );
    }
    if (!res.ok) throw new CliError(describeFailure(res.status, parsed));
    return parsed as T;
  }

  /** fetch against the server, with a connection failure or a timeout turned into a one-line hint. */
  async fetch(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(this.url + path, { ...init, redirect: 'manual' });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw this.timedOut(init.method ?? 'GET', path);
      if ((err as Error).name === 'AbortError') throw err;
      throw new CliError(unreachableMessage(this.connection));
    }
  }

  /** The one-line error for a request that got no (complete) answer in time. */
  timedOut(method: string, path: string): CliError {
    const seconds = this.connection.timeoutMs / 1000;
    return new CliError(
      `no answer from ${this.url} to ${method} ${path.split('?')[0]} within ${seconds} s — is Sandbay stuck? (--timeout SECONDS waits longer)`,
    );
  }

  /**
   * Makes sure a sandbox is named when acting with the admin key: the only sandbox is
   * picked; with none or several, the user is told how to choose.
   */
  async ensureSandbox(): Promise<void> {
    if (!this.connection.admin || this.connection.sandbox) return;
    const page = await this.request<{ data: { id: string; name: string }[]; nextCursor: string | null }>(
      'GET',
      '/api/v1/sandboxes?limit=6',
    );
    if (page.data.length === 1) {
      this.connection.sandbox = page.data[0].id;
      return;
    }
    if (page.data.length === 0) throw new CliError('no sandbox yet: create one with `sandbay token --new`');
    const ids = page.data
      .slice(0, 5)
      .map((s) => s.id)
      .join(', ');
    throw new CliError(
      `several sandboxes; choose one with --sandbox ID or SANDBAY_SANDBOX (${ids}${page.nextCursor || page.data.length > 5 ? ', …' : ''})`,
    );
  }
}

/** A client for a command's flags, ready to act on a sandbox. */
export async function sandboxClient(flags: ConnectionFlags): Promise<Client> {
  const client = new Client(resolveConnection(flags));
  await client.ensureSandbox();
  return client;
}
