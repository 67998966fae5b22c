// The inspector shows a database outage instead of a page that only looks live: a banner while the
// database is away (the engine's health says so, and the API answers 503), gone once it is back.
import { after, before, test } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../src/server/start.ts';
import { createSandbox } from '../helpers/engine.ts';
import { startFaultServer, type FaultServer } from '../helpers/fault-postgres.ts';
import { useBrowser } from './browser.ts';
import { expect } from './expect.ts';

const browser = useBrowser();
let server: FaultServer;
let engine: RunningSandbox;
before(async () => {
  server = await startFaultServer();
  engine = await startSandbox({
    databaseUrl: await server.createDatabase(),
    memory: true,
    port: 0,
    logRequests: false,
    logger: { info() {}, warn() {}, error() {} },
  });
});
after(async () => {
  await engine?.close();
  await server?.close();
});

test('a banner says the database is not answering while it is stopped, and goes once it is back', async (t) => {
  const sb = await createSandbox(engine.url);
  const page = await browser.newPage();
  t.after(() => page.context().close());
  await page.goto(`${engine.url}/sandboxes/${sb.id}/deliveries?key=${engine.adminKey}`);
  await expect(page.getByTestId('connection')).text('Live');
  await expect(page.getByTestId('outage')).count(0);

  await server.stop();
  await expect(page.getByTestId('outage')).text(/^The database is not answering since/);
  // What the page does meanwhile answers 503, not a frozen spinner: the view keeps what it had.
  await page.getByRole('link', { name: 'Endpoints', exact: true }).click();
  await expect(page.getByTestId('outage')).visible();

  await server.start();
  await expect(page.getByTestId('outage')).count(0);
  await page.getByRole('link', { name: 'Deliveries', exact: true }).click();
  await expect(page.getByTestId('connection')).text('Live');
});
