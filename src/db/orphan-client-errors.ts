import pg from 'pg';

let report: ((message: string) => void) | undefined;

/**
 * The last line of "no lost connection ends the engine": an 'error' event from a node-postgres client
 * that nobody listens to any more is logged instead of thrown. Sandbay's own clients always carry a
 * listener (postgres.ts); this is for clients a library keeps: pg-listen, replacing the LISTEN
 * connection after a drop, leaves the old client a single `once('error')`, so a second error from it
 * (the server's FATAL message, then the socket's reset) would crash the process. Installed once per
 * process; messages go to the latest engine's log.
 */
export function logOrphanClientErrors(log: (message: string) => void): void {
  if (!report) {
    const emit = pg.Client.prototype.emit;
    pg.Client.prototype.emit = function (this: pg.Client, event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'error' && this.listenerCount('error') === 0) {
        report?.(`database connection lost (a client no longer in use): ${(args[0] as Error)?.message ?? args[0]}`);
        return false;
      }
      return emit.call(this, event, ...args);
    } as typeof emit;
  }
  report = log;
}
