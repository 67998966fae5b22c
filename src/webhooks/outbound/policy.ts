import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ApiError } from '../../shared/problem.ts';
import { addressKind, AllowList, canonicalAddress, type AddressKind } from './address-ranges.ts';

/** Resolves a host name to its addresses (all of them, in the resolver's order). Tests pass a stub. */
export type HostLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, order: 'verbatim' });

export interface OutboundPolicyOptions {
  /** Shared mode (SPEC §9): every outbound request is checked. On a laptop nothing is. */
  shared: boolean;
  /** `--allow-receivers`: CIDR blocks reachable even though they are loopback, private, this server… */
  allowReceivers?: readonly string[];
  lookup?: HostLookup;
  /** The database server's host and port (none for PGlite). */
  database?: { host: string; port: number };
}

/** Where this engine listens, known once it does: its own address and the public URL. */
export interface SelfAddress {
  ownUrl: string;
  port: number;
  publicUrl?: string;
}

/** Every address the name resolved to (all allowed, to be tried in order), or why it is refused. */
export type Verdict = { addresses: string[] } | { refused: string };

const kindText: Record<AddressKind, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  reserved: 'a reserved (not public) address',
};

const policyHint =
  'a shared Sandbay reaches public addresses only, plus the blocks its operator lists in --allow-receivers';

/** An outbound request the policy refused before any socket opened (the attempt's error says so). */
export class BlockedByPolicy extends Error {
  readonly code = 'SANDBAY_BLOCKED_BY_POLICY';
}

// A sandbox's built-in catcher, on this very server: /catch/<sandboxId>/<name> and nothing else.
const catcherPath = /^\/catch\/[^/]+\/[^/]+$/;

/**
 * The outbound policy (SPEC §9). On a shared server every request Sandbay sends — deliveries, test
 * webhooks, checks, effects URLs, replays — may reach only public addresses plus the operator's
 * `--allow-receivers`; loopback, private, link-local, metadata and reserved ranges, this machine's own
 * addresses and the database are refused. The decision is made on the address a connection is about
 * to use (./connector.ts resolves once and connects to exactly that address), so a name that
 * resolves elsewhere later (DNS rebinding) is caught at connect time.
 */
export class OutboundPolicy {
  readonly shared: boolean;
  readonly allowed: AllowList;
  /**
   * Whether connections go through ./connector.ts: always when shared; on a laptop only when a
   * resolver was given (tests), since there undici's own connector does the same job.
   */
  readonly vetsConnections: boolean;
  private readonly lookup: HostLookup;
  private self?: SelfAddress;
  private databaseAddresses?: Promise<Set<string>>;

  constructor(private readonly options: OutboundPolicyOptions) {
    this.shared = options.shared;
    this.allowed = new AllowList(options.allowReceivers ?? []);
    this.lookup = options.lookup ?? systemLookup;
    this.vetsConnections = options.shared || options.lookup !== undefined;
  }

  /** Tells the policy where this engine listens (after it does). */
  attach(self: SelfAddress): void {
    this.self = self;
  }

  /** Why `address:port` is refused, or undefined when it may be reached. Laptop mode refuses nothing. */
  decide(address: string, port: number, database: ReadonlySet<string> = new Set()): string | undefined {
    if (!this.shared || this.allowed.has(address)) return undefined;
    const ip = canonicalAddress(address);
    if (this.options.database && port === this.options.database.port && database.has(ip))
      return "the database's address";
    const own = ownAddresses();
    if (this.self && port === this.self.port && (own.has(ip) || addressKind(ip) === 'loopback' || ip === '0.0.0.0'))
      return "this Sandbay server's own address";
    const kind = addressKind(ip);
    if (kind) return kindText[kind];
    if (own.has(ip)) return "an address of this Sandbay server's machine";
    return undefined;
  }

  /** Resolves `hostname` once and judges every address it gave: the connection may use only those. */
  async vet(hostname: string, port: number): Promise<Verdict> {
    const host = hostname.replace(/^\[|\]$/g, '');
    // Through its public URL, this server's API (its catchers are routed before they get here).
    if (this.shared && this.isPublicOrigin(host, port))
      return { refused: `${host}:${port} is this Sandbay server's public address` };
    const addresses = isIP(host)
      ? [host]
      : (await withTimeout(this.lookup(host), lookupTimeoutMs, host)).map((a) => a.address);
    if (!this.shared) return { addresses };
    const database = await this.database();
    for (const address of addresses) {
      const refused = this.decide(address, port, database);
      if (refused)
        return { refused: host === address ? `${host} is ${refused}` : `${host} resolves to ${address}, ${refused}` };
    }
    if (addresses.length === 0) return { refused: `${host} has no address` };
    return { addresses };
  }

  /**
   * Registration (an endpoint, a test webhook, a check or its effects URL): a URL whose host is or
   * resolves to a refused address is 422 blocked_by_policy at once. A name that does not resolve
   * yet is accepted; its attempts are judged when they connect.
   */
  async assertAllowed(url: string, path: string): Promise<void> {
    if (!this.shared || this.selfRoute(url)) return;
    const parsed = new URL(url);
    const port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
    let verdict: Verdict;
    try {
      verdict = await this.vet(parsed.hostname, port);
    } catch {
      return; // not resolvable now: the connect-time check decides
    }
    if ('refused' in verdict) {
      const message = `Refused by the outbound policy: ${verdict.refused}; ${policyHint}.`;
      throw new ApiError(422, 'blocked_by_policy', message, { errors: [{ path, message }] });
    }
  }

  /**
   * A shared server's own catcher URL (the public URL's origin, /catch/<sandbox>/<name>) goes to this
   * engine directly: the catchers are its own routes, and a load balancer may not carry a request
   * from the server back to itself. Any other path of this server is refused like any own address.
   */
  selfRoute(url: string): string | undefined {
    if (!this.shared || !this.self?.publicUrl) return undefined;
    const parsed = new URL(url);
    if (parsed.origin !== new URL(this.self.publicUrl).origin || !catcherPath.test(parsed.pathname)) return undefined;
    return `${this.self.ownUrl}${parsed.pathname}${parsed.search}`;
  }

  private isPublicOrigin(host: string, port: number): boolean {
    if (!this.self?.publicUrl) return false;
    const url = new URL(this.self.publicUrl);
    return (
      url.hostname.replace(/^\[|\]$/g, '') === host.toLowerCase() &&
      (Number(url.port) || (url.protocol === 'https:' ? 443 : 80)) === port
    );
  }

  /** The refusal as an error for the connector. */
  blocked(reason: string): BlockedByPolicy {
    return new BlockedByPolicy(`blocked_by_policy: ${reason}; ${policyHint}`);
  }

  private database(): Promise<Set<string>> {
    const db = this.options.database;
    if (!db) return Promise.resolve(new Set());
    // Resolved once: the database's address does not move under a running engine.
    this.databaseAddresses ??= (
      isIP(db.host) ? Promise.resolve([db.host]) : this.lookup(db.host).then((all) => all.map((a) => a.address))
    ).then(
      (all) => new Set(all.map(canonicalAddress)),
      () => new Set<string>(),
    );
    return this.databaseAddresses;
  }
}

/** A resolver that does not answer within this is a failed lookup (an attempt fails; a registration is not held up). */
const lookupTimeoutMs = 5000;

function withTimeout<T>(promise: Promise<T>, ms: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`resolving ${host} took over ${ms / 1000} s`), { code: 'EAI_AGAIN' })),
      ms,
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Every address of this machine's interfaces: reaching them reaches the server itself. */
function ownAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) out.add(canonicalAddress(a.address));
  return out;
}

/** The database's host and port from its URL, for the policy (undefined for PGlite). */
export function databaseAddress(databaseUrl: string | undefined): { host: string; port: number } | undefined {
  if (!databaseUrl) return undefined;
  try {
    const url = new URL(databaseUrl);
    const host = decodeURIComponent(url.hostname).replace(/^\[|\]$/g, '') || 'localhost';
    // A Unix socket (host=/path in the query) is not reachable over HTTP: nothing to guard.
    if (host.startsWith('/')) return undefined;
    return { host, port: Number(url.port) || 5432 };
  } catch {
    return undefined;
  }
}
