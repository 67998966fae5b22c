import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expect } from './expect.ts';
import { call, createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { operatorKey } from '../helpers/session.ts';
import { placeOrder, registerEndpoint } from '../helpers/webhooks.ts';
import { screenshot, useBrowser } from './browser.ts';

// The inspector on a shared server (issue 11): bound beyond loopback (a wildcard bind, reached
// over 127.0.0.1), published at a public URL, with the operator's admin key. The operator creates
// the sandboxes and lists this machine's loopback for the test's receiver; a teammate signs in with
// their own sandbox's client credentials and sees that sandbox only.
const publicUrl = 'http://sandbay.test:8080';
const engine = useEngine({ host: '0.0.0.0', publicUrl, adminKey: operatorKey, allowReceivers: ['127.0.0.1/32'] });
const browser = useBrowser();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

let page: Awaited<ReturnType<typeof browser.newPage>>;
let alice: TestSandbox;
let bob: TestSandbox;

test("the page asks for a sandbox's credentials, and never holds the admin key", async () => {
  alice = await createSandbox(engine.url, 'alice', operatorKey);
  bob = await createSandbox(engine.url, 'bob', operatorKey);
  await registerEndpoint(alice, receiver.url, ['order.placed']);
  await registerEndpoint(bob, receiver.url, ['order.placed']);
  page = await browser.newPage();
  await page.goto(`${engine.url}/?key=${operatorKey}`);
  await expect(page.getByRole('heading', { name: 'Sign in to your sandbox' })).visible();
  assert.equal(new URL(page.url()).search, '', 'a pasted key leaves the address bar');
  assert.ok(!(await page.content()).includes(operatorKey));
  assert.equal(await page.evaluate('sessionStorage.getItem("sandbay.adminKey")'), null, 'nor is it kept');
  assert.deepEqual(
    (await page.context().cookies()).map((c) => c.name),
    [],
    'no admin cookie',
  );
  await expect(page.getByTestId('ask-operator')).text(/Ask the operator of this server/);
  await expect(page.getByRole('button', { name: 'Create a sandbox' })).count(0);

  await page.getByLabel('Client ID', { exact: true }).fill(alice.clientId);
  await page.getByLabel('Client secret').fill('cs_wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Unknown client ID, or a wrong client secret.')).visible();
  await screenshot(page, 'shared-sign-in');
});

test('signed in with client credentials: its deliveries live, no sandbox switcher', async () => {
  await page.getByLabel('Client secret').fill(alice.clientSecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'No deliveries yet' })).visible();
  assert.match(page.url(), new RegExp(`/sandboxes/${alice.id}/deliveries$`));
  await expect(page.getByTestId('connection')).text('Live');
  await expect(page.getByTestId('signed-in-as')).text(new RegExp(`alice · ${alice.id}`));
  await expect(page.getByRole('combobox', { name: 'Sandbox' })).count(0);
  const [cookie] = await page.context().cookies();
  assert.equal(cookie.name, 'sandbay_session_8080', 'named with the public port');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Strict');

  const order = await placeOrder(alice);
  const [delivery] = (await alice.api('/api/v1/webhooks/deliveries')).body.data;
  assert.equal(delivery.topic, 'order.placed');
  const row = page.locator(`[data-delivery-id="${delivery.id}"]`);
  await expect(row).visible();
  await expect(row.locator('.badge')).text('succeeded');
  assert.ok(order.id);
  await screenshot(page, 'shared-deliveries');
});

test('a deep link to another sandbox shows none of its data; the portal shows the public URL and no list', async () => {
  await placeOrder(bob);
  const [bobs] = (await bob.api('/api/v1/webhooks/deliveries')).body.data;
  await page.goto(`${engine.url}/sandboxes/${bob.id}/deliveries/${bobs.id}`);
  await expect(page.getByRole('heading', { name: 'Not your sandbox' })).visible();
  await expect(page.locator(`[data-delivery-id="${bobs.id}"]`)).count(0);
  await expect(page.getByTestId('connection')).text('Live'); // still following alice's stream
  await page.getByRole('link', { name: 'Open your deliveries' }).click();
  await expect(page.locator('[data-delivery-id]')).count(1);

  await page.getByRole('link', { name: 'Portal' }).click();
  await expect(page.getByText(`${publicUrl}/api/v1`)).visible();
  await expect(page.getByRole('heading', { name: 'Your sandboxes' })).count(0);
  await expect(page.getByRole('button', { name: 'Switch to bob' })).count(0);
});

test('sign out ends the session; an expired one says so', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to your sandbox' })).visible();
  assert.deepEqual(await page.context().cookies(), []);
  await expect(page.getByLabel('Client ID', { exact: true })).value(alice.clientId); // the id (not the secret) is remembered

  const short = await call(engine.url, '/oauth/token', {
    body: {
      grant_type: 'client_credentials',
      client_id: alice.clientId,
      client_secret: alice.clientSecret,
      expires_in: '3',
    },
  });
  await page.getByLabel('With an access token').check();
  await page.getByLabel('Access token', { exact: true }).fill(short.body.access_token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in-as')).visible();
  await expect(
    page.getByText('Your session expired (access tokens live 1 hour on the real clock). Sign in again.'),
  ).visible();
  assert.deepEqual(page.errors, []);
});

test('a read-only session sees each endpoint and whether chaos is on, but neither Check receiver nor the chaos form', async () => {
  const endpointUrl = receiver.url;
  const readOnly = await call(engine.url, '/oauth/token', {
    body: {
      grant_type: 'client_credentials',
      client_id: alice.clientId,
      client_secret: alice.clientSecret,
      scope: 'webhooks:read',
    },
  });
  assert.equal(readOnly.status, 200, JSON.stringify(readOnly.body));
  const viewer = await browser.newPage();
  await viewer.goto(engine.url);
  await viewer.getByLabel('With an access token').check();
  await viewer.getByLabel('Access token', { exact: true }).fill(readOnly.body.access_token);
  await viewer.getByRole('button', { name: 'Sign in' }).click();
  await expect(viewer.getByTestId('signed-in-as')).visible();
  await viewer.goto(`${engine.url}/sandboxes/${alice.id}/endpoints`);
  const card = viewer.getByRole('listitem', { name: `Endpoint ${endpointUrl}` });
  await expect(card.getByTestId('chaos')).text('Chaos: off');
  await expect(card.getByRole('button', { name: `Check receiver ${endpointUrl}` })).count(0);
  await expect(card.getByRole('button', { name: 'Save chaos' })).count(0);
  assert.deepEqual(viewer.errors, []);
});
