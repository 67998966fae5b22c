import { create } from 'zustand';
import { api, query } from '../api/client.ts';
import type { EnabledEndpoints, Endpoint, EndpointChaos, Page } from '../../shared/api-types.ts';
import { maskSecret } from '../../shared/mask-secret.ts';
import type { SchemeName } from '../../shared/schemes.ts';

interface EndpointInput {
  url: string;
  topics: string[];
  description?: string | null;
  enabled?: boolean;
  chaos?: Partial<EndpointChaos> | null;
  signature?: SchemeName[];
}

interface EndpointsState {
  endpoints: Endpoint[];
  loaded: boolean;
  error: string | null;
  load(): Promise<void>;
  create(input: EndpointInput): Promise<Endpoint>;
  update(id: string, patch: Partial<EndpointInput>): Promise<Endpoint>;
  rotate(id: string): Promise<Endpoint>;
  remove(id: string): Promise<void>;
  /** Enables every endpoint an import paused, in one call; the ones the outbound policy refuses stay off. */
  resumeImported(): Promise<EnabledEndpoints>;
  clear(): void;
}

/** The sandbox's webhook endpoints (secrets masked, as the API lists them). */
export const useEndpoints = create<EndpointsState>()((set, get) => {
  // Create and rotate answer with the secret in full; the list keeps it masked like every other read.
  const masked = (endpoint: Endpoint): Endpoint => ({
    ...endpoint,
    secret: endpoint.secret.includes('•') ? endpoint.secret : maskSecret(endpoint.secret),
  });
  const replace = (endpoint: Endpoint) =>
    set({ endpoints: get().endpoints.map((e) => (e.id === endpoint.id ? masked(endpoint) : e)) });
  return {
    endpoints: [],
    loaded: false,
    error: null,

    async load() {
      try {
        const all: Endpoint[] = [];
        let cursor: string | null = null;
        do {
          const page: Page<Endpoint> = await api.get(`/api/v1/webhooks/endpoints${query({ limit: 100, cursor })}`);
          all.push(...page.data);
          cursor = page.nextCursor;
        } while (cursor);
        set({ endpoints: all, loaded: true, error: null });
      } catch (err) {
        set({ loaded: true, error: (err as Error).message });
      }
    },

    async create(input) {
      const endpoint = await api.post<Endpoint>('/api/v1/webhooks/endpoints', input);
      set({ endpoints: [masked(endpoint), ...get().endpoints] });
      return endpoint;
    },

    async update(id, patch) {
      const endpoint = await api.patch<Endpoint>(`/api/v1/webhooks/endpoints/${id}`, patch);
      replace(endpoint);
      return endpoint;
    },

    async rotate(id) {
      const endpoint = await api.post<Endpoint>(`/api/v1/webhooks/endpoints/${id}/rotate-secret`);
      replace(endpoint);
      return endpoint;
    },

    async resumeImported() {
      const result = await api.post<EnabledEndpoints>('/api/v1/webhooks/endpoints/enable', {
        disabledReason: 'imported',
      });
      for (const endpoint of result.enabled) replace(endpoint);
      return result;
    },

    async remove(id) {
      await api.delete(`/api/v1/webhooks/endpoints/${id}`);
      set({ endpoints: get().endpoints.filter((e) => e.id !== id) });
    },

    clear() {
      set({ endpoints: [], loaded: false, error: null });
    },
  };
});
