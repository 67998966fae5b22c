import { create } from 'zustand';
import { api, ApiProblem } from '../api/client.ts';
import type { Delivery, LiveSecret, PortalSecrets, StreamMessage } from '../../shared/api-types.ts';

/** The secrets a delivery is signed with: its endpoint's live ones, or the sandbox's webhookTestSecret. */
export type SigningSecrets = { source: 'endpoint' | 'test_secret' | 'check'; secrets: LiveSecret[] };

interface DetailState {
  id: string | null;
  delivery: Delivery | null;
  loading: boolean;
  error: ApiProblem | null;
  /** By endpoint id, or 'test' for the sandbox's test secret. */
  secrets: Record<string, SigningSecrets | ApiProblem>;
  open(id: string | null): void;
  refresh(): Promise<void>;
  loadSecrets(delivery: Delivery, force?: boolean): Promise<void>;
  forgetSecrets(endpointId?: string): void;
  applyLive(messages: StreamMessage[]): void;
}

/** A bare-URL check's deliveries are signed with the secret of their run. */
export const secretsKey = (d: Pick<Delivery, 'endpointId' | 'check'>) =>
  d.endpointId ?? (d.check ? `check:${d.check.id}` : 'test');
const refreshDelayMs = 60;

export const useDetail = create<DetailState>()((set, get) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  return {
    id: null,
    delivery: null,
    loading: false,
    error: null,
    secrets: {},

    open(id) {
      if (id === get().id) return;
      generation++;
      set({ id, delivery: null, error: null });
      // Cannot reject: refresh() catches: the error shows in the store.
      if (id) void get().refresh();
    },

    async refresh() {
      const { id } = get();
      if (!id) return;
      const gen = generation;
      set({ loading: true });
      try {
        const delivery = await api.get<Delivery>(`/api/v1/webhooks/deliveries/${encodeURIComponent(id)}`);
        if (gen === generation) set({ delivery, error: null });
      } catch (err) {
        if (gen === generation) set({ error: err as ApiProblem, delivery: null });
      } finally {
        if (gen === generation) set({ loading: false });
      }
    },

    async loadSecrets(delivery, force = false) {
      const key = secretsKey(delivery);
      if (!force && get().secrets[key] && !(get().secrets[key] instanceof ApiProblem)) return;
      let value: SigningSecrets | ApiProblem;
      try {
        value = delivery.endpointId
          ? {
              source: 'endpoint',
              secrets: (
                await api.get<{ data: LiveSecret[] }>(`/api/v1/webhooks/endpoints/${delivery.endpointId}/secrets`)
              ).data,
            }
          : delivery.check
            ? {
                source: 'check',
                secrets: (await api.get<{ data: LiveSecret[] }>(`/api/v1/webhooks/checks/${delivery.check.id}/secrets`))
                  .data,
              }
            : {
                source: 'test_secret',
                secrets: [
                  {
                    secret: (await api.get<PortalSecrets>('/api/v1/sandbox/credentials')).webhookTestSecret,
                    createdAt: '',
                    expiresAt: null,
                    publicKey: null,
                  },
                ],
              };
      } catch (err) {
        value = err as ApiProblem;
      }
      set({ secrets: { ...get().secrets, [key]: value } });
    },

    forgetSecrets(endpointId) {
      if (!endpointId) return set({ secrets: {} });
      const { [endpointId]: _gone, ...rest } = get().secrets;
      set({ secrets: rest });
    },

    applyLive(messages) {
      const { id } = get();
      if (!id || !messages.some((m) => m.data.id === id)) return;
      // Several messages arrive per attempt: one fetch covers them.
      clearTimeout(timer);
      timer = setTimeout(() => void get().refresh(), refreshDelayMs);
    },
  };
});
