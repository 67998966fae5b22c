import type { PostgresTimeouts } from '../db/timeouts.ts';
import type { HostLookup } from '../webhooks/outbound/policy.ts';
import type { Logger } from './log.ts';
import type { RouteDef } from './route.ts';
import type { Services } from './services.ts';

export interface SandboxOptions {
  /** Default 4400; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Extra Host names to accept (e.g. host.docker.internal). */
  allowHosts?: string[];
  /**
   * The URL users and receivers see (behind a load balancer or proxy): catchers, the OpenAPI
   * `servers` entry, the ready line, the discovery file and the inspector's links use it, and
   * the Host/Origin guards accept it. An origin: http(s)://host[:port], no path.
   */
  publicUrl?: string;
  /**
   * The admin key, given by the operator instead of the data dir's own (admin-key.ts). Required when
   * the server is shared (a --host beyond loopback, or a non-loopback publicUrl); at least 32 characters.
   */
  adminKey?: string;
  /** Default: the platform data dir (SPEC §1). */
  dataDir?: string;
  /** Scratch storage, removed on close. */
  memory?: boolean;
  /** Run on this PostgreSQL server (postgres://…) instead of PGlite; the data dir then keeps only the lock and server.json. */
  databaseUrl?: string;
  /** Run on a PostgreSQL server Sandbay starts itself in <dataDir>/postgres (scratch storage with memory). */
  postgres?: boolean;
  /** Database connections of this engine on PostgreSQL (default 10). */
  poolSize?: number;
  /** PostgreSQL timeouts: connect, statement, lock, idle in transaction (src/db/timeouts.ts has the defaults). */
  databaseTimeouts?: Partial<PostgresTimeouts>;
  logger?: Logger;
  /** One log line per request (path only, never the query). Default true. */
  logRequests?: boolean;
  /** Per-attempt webhook timeout; SPEC's 10 s by default (tests shorten it). */
  attemptTimeoutMs?: number;
  /** Deliveries kept per sandbox before older finished ones are pruned (default 10,000). */
  maxDeliveriesPerSandbox?: number;
  /**
   * Set in a worker of `serve --workers N`: its primary holds the data dir (lock, discovery file,
   * managed PostgreSQL), and the workers answer GET /api/v1/health with the primary's instance id.
   */
  worker?: { instanceId: string; adminKey?: string; adminKeyDir?: string };
  /** How long a claimed delivery stays leased to this engine (default 30 s; the team tests shorten it). */
  deliveryLeaseMs?: number;
  /** The slow poll for due deliveries and stopped engines' leases (default 2 s). */
  deliveryPollMs?: number;
  /** How long one heartbeat of this engine vouches for it (default 20 s; the team tests shorten it). */
  engineAliveMs?: number;
  /** The slow poll for commerce jobs due that no engine has run (default 5 s; the team tests shorten it). */
  jobPollMs?: number;
  /** The largest sandbox file POST /api/v1/sandboxes/import accepts, in bytes (default 256 MiB). */
  maxImportBytes?: number;
  /**
   * `--allow-receivers`: on a shared server, CIDR blocks outbound requests may reach although they are
   * loopback, private, link-local, this server or the database (SPEC §9). Ignored on a laptop.
   */
  allowReceivers?: string[];
  /** How receivers' host names are resolved (default: the system resolver). Tests pass a stub. */
  outboundLookup?: HostLookup;
  /** On a shared server, let anyone create a sandbox (POST /api/v1/sandboxes without the admin key). */
  openSandboxCreation?: boolean;
  /** A live-stream client that leaves its buffer full this long is dropped (default 30 s; tests shorten it). */
  streamStallMs?: number;
  /**
   * `--otlp-endpoint`: export a span per delivery attempt over OTLP/HTTP to this base URL (…/v1/traces is
   * added). Default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT, else no export.
   */
  otlpEndpoint?: string;
}

export interface RunningSandbox {
  /** This process's own address, http://127.0.0.1:<port> */
  url: string;
  /** What users and receivers see: the publicUrl option, else `url`. */
  publicUrl: string;
  /** The URL to open: carries the admin key on loopback (SPEC §8), never on a shared server (§9). */
  readyUrl: string;
  /** Listening beyond loopback (or published beyond it): browsers sign in with a sandbox's credentials. */
  shared: boolean;
  /** The admin key; absent on an engine that accepts a shared database's key without knowing it (admin-key.ts). */
  adminKey?: string;
  /** This engine run's id (its lock, discovery file and health route name it). */
  instanceId: string;
  port: number;
  /**
   * The address the socket is bound to, as the OS says: 127.0.0.1, or a wildcard (0.0.0.0, ::) that takes every
   * interface.
   */
  boundAddress: string;
  dataDir?: string;
  services: Services;
  /** Every route definition served (what the OpenAPI document is built from). */
  routes: readonly RouteDef[];
  close(): Promise<void>;
}
