/**
 * Database faults the engine lives through (docs/team-mode.md, Faults): the drivers turn a lost,
 * refused, stalled or overloaded database into DatabaseUnavailableError, and a full disk into
 * StorageFullError, so that the layers above tell "try again shortly" from a bug without knowing
 * either driver's error shapes. The server answers them 503 and 507.
 */

/**
 * The database cannot serve now: unreachable, restarting, stalled, out of connections, or a statement or lock wait
 * timed out.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';

  constructor(
    message: string,
    /** The SQLSTATE or socket error code underneath, when there is one. */
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The database's disk is full (SQLSTATE 53100): reads still work, writes fail until space returns. */
class StorageFullError extends Error {
  override readonly name = 'StorageFullError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

// Socket-level failures: the server is not there (yet), or the path to it broke.
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

// SQLSTATEs that say "not now" rather than "this statement is wrong":
// 08xxx connection exceptions, 57P01-57P03 shutdown/starting up, 53300 too many connections,
// 57014 statement timeout (or a cancel), 55P03 lock timeout, 25P03 idle-in-transaction timeout.
const transientStates = new Set(['57P01', '57P02', '57P03', '53300', '57014', '55P03', '25P03']);

// node-postgres and pg-pool report these without a code.
const driverMessages = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /is not queryable/,
  /^Client was closed/,
  /^Cannot use a pool after calling end/,
];

const codeOf = (err: unknown) => String((err as { code?: unknown })?.code ?? '');

/** What kind of database fault err is, if it is one. */
export function faultOf(err: unknown): 'unavailable' | 'storage_full' | undefined {
  if (err instanceof DatabaseUnavailableError) return 'unavailable';
  if (err instanceof StorageFullError) return 'storage_full';
  const code = codeOf(err);
  // 53100 disk_full from the server (PGlite's too); ENOSPC from a file the engine writes itself.
  if (code === '53100' || code === 'ENOSPC') return 'storage_full';
  if (socketCodes.has(code) || transientStates.has(code) || code.startsWith('08')) return 'unavailable';
  const message = (err as Error)?.message ?? '';
  if (driverMessages.some((re) => re.test(message))) return 'unavailable';
  return undefined;
}

/** err as a DatabaseUnavailableError or StorageFullError when it is such a fault; otherwise err unchanged. */
export function asDatabaseFault(err: unknown): unknown {
  const fault = faultOf(err);
  if (!fault || err instanceof DatabaseUnavailableError || err instanceof StorageFullError) return err;
  const message = (err as Error)?.message ?? String(err);
  if (fault === 'storage_full') return new StorageFullError(message, { cause: err });
  return new DatabaseUnavailableError(message, codeOf(err) || undefined, { cause: err });
}

/** Runs fn, rethrowing a database fault as its typed error. */
export async function typedFaults<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asDatabaseFault(err);
  }
}

/** True for errors worth retrying once the database is back (not for a full disk, nor for a bad statement). */
export const isUnavailable = (err: unknown) => faultOf(err) === 'unavailable';
