import { resolve } from 'node:path';
import { defaultDataDir } from './data-dir.ts';
import { readDiscovery } from './instance-lock.ts';
import { processStatus } from '../shared/node/process-alive.ts';
import { runningServers, serverRegistryDir, type RegisteredServer } from './server-registry.ts';

const defaultServerUrl = 'http://127.0.0.1:4400';

/** Where the running Sandbay is, and how that was decided. */
export interface LocatedServer {
  url: string;
  /** Its admin key, when this machine's discovery file or registry has it for that very URL. */
  adminKey?: string;
  /** With nothing found (the default URL): where this looked, for the message that says so. */
  searched?: { dataDir: string; registry: string; dataDirGiven: boolean };
}

/** One server in a line: its URL, its data, its pid. */
const describeServer = (s: { url: string; dataDir: string | null; memory: boolean; pid: number }) =>
  `${s.url} (${s.memory ? `memory${s.dataDir ? `, --data-dir ${s.dataDir}` : ''}` : `data ${s.dataDir}`}, pid ${s.pid})`;

/** Several servers run and nothing says which is meant: the error lists them and how to pick. */
class AmbiguousServerError extends Error {
  constructor(readonly servers: { url: string; dataDir: string | null; memory: boolean; pid: number }[]) {
    super(
      `${servers.length} Sandbays are running: ${servers.map(describeServer).join(', ')}; ` +
        'pick one with --url URL or --data-dir DIR (or SANDBAY_URL / SANDBAY_DATA_DIR)',
    );
  }
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * The default data dir's server.json as a registry entry, when its process runs (the desktop app registers no other
 * way).
 */
function discoveredServer(dataDir: string): RegisteredServer | undefined {
  const discovery = readDiscovery(dataDir);
  if (!discovery || !processStatus(discovery.pid).running) return undefined;
  return {
    url: discovery.url,
    publicUrl: discovery.publicUrl,
    port: Number(new URL(discovery.url).port),
    pid: discovery.pid,
    instanceId: discovery.instanceId ?? `pid-${discovery.pid}`,
    dataDir,
    memory: false,
    adminKey: discovery.adminKey,
    startedAt: '',
  };
}

/**
 * Every Sandbay running on this machine for this user, oldest first: the registry's, and the one
 * whose server.json is in the platform data dir (the desktop app) when it is not registered.
 */
export function knownServers(env = process.env, registered = runningServers(env)): RegisteredServer[] {
  const platformServer = discoveredServer(defaultDataDir(env));
  if (!platformServer || registered.some((s) => s.instanceId === platformServer.instanceId)) return registered;
  return [...registered, platformServer];
}

/**
 * The one resolver of the CLI and `sandbay/testing` (docs/cli.md, "Finding the server"): a URL given
 * (--url, SANDBAY_URL) wins; else a data dir given (--data-dir, SANDBAY_DATA_DIR) names the server
 * started with it (its server.json, or the registry for --memory); else the one server running (the
 * registry, and the platform data dir's server.json); several is an error that lists them; none, the
 * default URL. The admin key only ever goes to the URL it was registered for.
 */
export function locateServer(given: { url?: string; dataDir?: string }, env = process.env): LocatedServer {
  const registry = serverRegistryDir(env);
  const servers = runningServers(env);
  const url = given.url || env.SANDBAY_URL || undefined;
  const dataDirGiven = given.dataDir || env.SANDBAY_DATA_DIR || undefined;
  const platformDir = defaultDataDir(env);
  if (url) {
    const origin = originOf(url);
    const known = [readDiscovery(dataDirGiven ?? platformDir), ...servers].find((s) => s && originOf(s.url) === origin);
    return { url, adminKey: known?.adminKey };
  }
  if (dataDirGiven) {
    const dir = resolve(dataDirGiven);
    const discovery = readDiscovery(dir);
    if (discovery) return { url: discovery.url, adminKey: discovery.adminKey };
    const started = servers.filter((s) => s.dataDir === dir);
    if (started.length > 1) throw new AmbiguousServerError(started);
    if (started.length === 1) return { url: started[0].url, adminKey: started[0].adminKey };
    return { url: defaultServerUrl, searched: { dataDir: dir, registry, dataDirGiven: true } };
  }
  const candidates = knownServers(env, servers);
  if (candidates.length > 1) throw new AmbiguousServerError(candidates);
  if (candidates.length === 1) return { url: candidates[0].url, adminKey: candidates[0].adminKey };
  return { url: defaultServerUrl, searched: { dataDir: platformDir, registry, dataDirGiven: false } };
}
