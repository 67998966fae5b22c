import { create } from 'zustand';
import { api, configureApi } from '../api/client.ts';
import type { Sandbox, SandboxSummary, SessionState } from '../../shared/api-types.ts';
import { hasScope } from '../../shared/scopes.ts';
import { useApp } from './app.ts';

/** What the page signs in with on a shared server: one sandbox's client credentials, or an access token. */
export type SignInCredentials = { clientId: string; clientSecret: string } | { accessToken: string };

type Status = 'loading' | 'local' | 'signed-out' | 'expired' | 'signed-in';

interface SignInState {
  /** local: the admin key of a loopback install (as before); the rest: a shared server's sign-in. */
  status: Status;
  shared: boolean;
  /** The URL users and receivers see (--public-url), for the links the inspector shows. */
  publicUrl: string;
  /** Anyone may create a sandbox here; on a closed shared server the operator hands them out. */
  openSandboxCreation: boolean;
  sandbox: SessionState['sandbox'];
  /** The client id last signed in with (not secret), to prefill the form after expiry. */
  lastClientId: string;
  load(): Promise<void>;
  signIn(credentials: SignInCredentials): Promise<void>;
  signOut(): Promise<void>;
  /** The session's token expired or was revoked (a 401 from the API). */
  expire(): void;
}

const clientIdKey = 'sandbay.clientId';
// Client credentials stay in this tab's memory only (never in storage): with them the session is
// renewed before its 1-hour token expires; after a reload, an expired session asks again.
let renewWith: { clientId: string; clientSecret: string } | null = null;
let renewTimer: ReturnType<typeof setTimeout> | undefined;
const renewAheadMs = 60_000;

/** Shows the signed-in sandbox as the inspector's only one, selected. */
async function enterSandbox(id: string): Promise<void> {
  let sandbox: SandboxSummary = { id, name: id, createdAt: '' };
  try {
    sandbox = await api.get<Sandbox>('/api/v1/sandbox');
  } catch {
    // a token without sandbox:read still shows its deliveries; the id stands in for the name
  }
  useApp.setState({ sandboxes: [sandbox], sandboxesLoaded: true, authNeeded: false });
  useApp.getState().selectSandbox(id);
}

export const useSignIn = create<SignInState>()((set, get) => {
  const schedule = (state: SessionState) => {
    clearTimeout(renewTimer);
    if (!state.sandbox) return;
    const left = Date.parse(state.sandbox.expiresAt) - Date.now();
    renewTimer = setTimeout(
      () => {
        if (renewWith)
          void get()
            .signIn(renewWith)
            .catch(() => get().expire());
        else get().expire();
      },
      Math.max(0, renewWith ? left - renewAheadMs : left),
    );
  };
  const apply = async (state: SessionState) => {
    set({
      shared: state.shared,
      publicUrl: state.publicUrl,
      sandbox: state.sandbox,
      status: state.sandbox ? 'signed-in' : 'signed-out',
    });
    schedule(state);
    if (state.sandbox) await enterSandbox(state.sandbox.id);
  };
  return {
    status: 'loading',
    shared: false,
    publicUrl: '',
    openSandboxCreation: true,
    sandbox: null,
    lastClientId: sessionStorage.getItem(clientIdKey) ?? '',

    async load() {
      let state: SessionState;
      try {
        state = await api.get<SessionState>('/api/v1/session', { sandbox: false });
      } catch {
        state = { shared: false, publicUrl: '', openSandboxCreation: true, sandbox: null }; // an older engine: the loopback behaviour
      }
      // An engine from before the switch answers without it: creation was open there.
      set({ openSandboxCreation: state.openSandboxCreation ?? true });
      if (!state.shared) {
        set({ status: 'local', shared: false, publicUrl: state.publicUrl });
        return useApp.getState().loadSandboxes();
      }
      // A shared server never takes the admin key from a page (SPEC §9): drop any the URL brought.
      configureApi({ adminKey: null, onUnauthorized: () => get().expire() });
      sessionStorage.removeItem('sandbay.adminKey');
      await apply(state);
    },

    async signIn(credentials) {
      const state = await api.post<SessionState>('/api/v1/session', credentials, { sandbox: false });
      if ('clientId' in credentials) {
        renewWith = credentials;
        sessionStorage.setItem(clientIdKey, credentials.clientId);
        set({ lastClientId: credentials.clientId });
      } else {
        renewWith = null;
      }
      await apply(state);
    },

    async signOut() {
      renewWith = null;
      clearTimeout(renewTimer);
      await api.delete('/api/v1/session').catch(() => {});
      set({ status: 'signed-out', sandbox: null });
      useApp.setState({ sandboxes: [] });
      useApp.getState().selectSandbox(null);
    },

    expire() {
      if (get().status !== 'signed-in') return;
      clearTimeout(renewTimer);
      set({ status: 'expired', sandbox: null });
      useApp.getState().selectSandbox(null);
    },
  };
});

/** Whether the signed-in session may do what `scope` allows (always, with the admin key on loopback). */
export function useCan(scope: string): boolean {
  return useSignIn((s) => !s.shared || (s.sandbox !== null && hasScope(new Set(s.sandbox.scopes), scope)));
}
