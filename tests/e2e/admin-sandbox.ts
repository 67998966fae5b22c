import type { TestContext } from 'node:test';
import { call, type ApiResponse, type useEngine } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';

type Engine = ReturnType<typeof useEngine>;

/** An inspector page (`/sandboxes/sbx_…/deliveries`), signed in by the admin key in its URL, as the ready line is. */
export const inspectorUrl = (engine: Engine, path: string) => `${engine.url}${path}?key=${engine.running.adminKey}`;

interface AdminSandbox {
  id: string;
  /** A request in this sandbox with the admin key, as the inspector itself makes them. */
  admin(path: string, init?: { method?: string; body?: unknown }): Promise<ApiResponse>;
  /** Registers an endpoint (topics order.* unless given) and returns it, secret included. */
  addEndpoint(url: string, topics?: string[]): Promise<any>;
  /** This sandbox's page of the inspector (`deliveries/del_…`, `endpoints`), signed in. */
  link(page: string): string;
}

/** A new sandbox, driven with the admin key: the inspector's tests act as the inspector does. */
export async function adminSandbox(engine: Engine): Promise<AdminSandbox> {
  const created = await call(engine.url, '/api/v1/sandboxes', { method: 'POST', body: {} });
  const id: string = created.body.sandbox.id;
  const admin: AdminSandbox['admin'] = (path, init = {}) =>
    call(engine.url, path, { ...init, token: engine.running.adminKey, headers: { 'sandbay-sandbox': id } });
  return {
    id,
    admin,
    addEndpoint: async (url, topics = ['order.*']) =>
      (await admin('/api/v1/webhooks/endpoints', { body: { url, topics } })).body,
    link: (page) => inspectorUrl(engine, `/sandboxes/${id}/${page}`),
  };
}

/** A loopback receiver for one test, closed when the test ends. */
export async function startReceiver(t: TestContext): Promise<Receiver> {
  const receiver = await new Receiver().start();
  t.after(() => receiver.close());
  return receiver;
}
