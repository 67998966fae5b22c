import { after, before } from 'node:test';
import pg from 'pg';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/server/start.ts';
import { call, type TestSandbox } from './engine.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';

const quiet = { info() {}, warn() {}, error() {} };

/**
 * Starts `count` engines in this process on one fresh PostgreSQL database of the file's own (team mode),
 * before the file's tests; closes them and drops the database after. `start()` adds one more engine.
 */
export function useTeamEngines(count: number, options: SandboxOptions = {}) {
  let database: TestDatabase | undefined;
  const engines: RunningSandbox[] = [];
  const team = {
    engines,
    get databaseUrl(): string {
      if (!database) throw new Error('team not started yet (use it inside a test)');
      return database.url;
    },
    start: () =>
      startSandbox({
        databaseUrl: team.databaseUrl,
        memory: true,
        port: 0,
        logRequests: false,
        logger: quiet,
        ...options,
      }),
  };
  before(async () => {
    database = await createTestDatabase();
    for (let i = 0; i < count; i++) engines.push(await team.start());
  });
  after(async () => {
    for (const engine of engines) await engine.close();
    await database?.drop();
  });
  return team;
}

/** The sandbox as seen through one engine of the team: its token works on all of them (they share the database). */
export const through = (engine: { url: string }, sandbox: TestSandbox): TestSandbox => ({
  ...sandbox,
  api: (path, init = {}) => call(engine.url, path, { ...init, token: sandbox.token }),
});

/**
 * Runs `fn` with a transaction open on a connection of its own (BEGIN is sent first): what it locks or
 * inserts is held until `fn` has committed it (or, if `fn` throws, the connection is closed).
 */
export async function withOpenTransaction<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    return await fn(client);
  } finally {
    await client.end();
  }
}
