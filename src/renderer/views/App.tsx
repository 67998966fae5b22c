import { useEffect, useState } from 'react';
import { api, ApiProblem } from '../api/client.ts';
import type { Sandbox } from '../../shared/api-types.ts';
import { ErrorBoundary } from '../components/ErrorBoundary.tsx';
import { EmptyState, Link } from '../components/Misc.tsx';
import { Toasts } from '../components/Toasts.tsx';
import { navigate, pathOf, useRoute, type Route } from '../router.ts';
import { lastSandboxId, useApp } from '../store/app.ts';
import { useSignIn } from '../store/signin.ts';
import { DeliveriesView } from './DeliveriesView.tsx';
import { EndpointsView } from './EndpointsView.tsx';
import { PortalView } from './PortalView.tsx';
import { SettingsView } from './SettingsView.tsx';
import { Shell } from './Shell.tsx';
import { SandboxSignIn } from './SandboxSignIn.tsx';
import { SignIn } from './SignIn.tsx';

/** Checks that a deep-linked sandbox exists (it may be older than the 100 listed), adding it to the switcher. */
function useSandboxCheck(sandboxId: string | undefined): 'ok' | 'missing' | 'checking' {
  const { sandboxes, sandboxesLoaded, sandboxId: selected } = useApp();
  const [missing, setMissing] = useState<string | null>(null);
  const known = !sandboxId || sandboxes.some((s) => s.id === sandboxId);
  useEffect(() => {
    // Only once the API client names this sandbox: the check is a sandbox-scoped call.
    if (!sandboxId || known || !sandboxesLoaded || selected !== sandboxId) return;
    api
      .get<Sandbox>('/api/v1/sandbox')
      .then((s) => useApp.setState({ sandboxes: [...useApp.getState().sandboxes, s] }))
      .catch((err: ApiProblem) => {
        if (err.status !== 404) return;
        setMissing(sandboxId);
        useApp.getState().selectSandbox(null); // nothing to stream for a sandbox that is not there
      });
  }, [sandboxId, known, sandboxesLoaded, selected]);
  if (known) return 'ok';
  return missing === sandboxId ? 'missing' : 'checking';
}

/** On a shared server, the sandbox of a deep link that is not the signed-in one (its data is never fetched). */
function useForeignSandbox(route: Route): string | undefined {
  const own = useSignIn((s) => (s.shared ? s.sandbox?.id : undefined));
  if (!own || !('sandboxId' in route) || route.sandboxId === own) return undefined;
  return route.sandboxId;
}

function Page({ route }: { route: Route }) {
  const foreign = useForeignSandbox(route);
  const check = useSandboxCheck('sandboxId' in route && !foreign ? route.sandboxId : undefined);
  const selected = useApp((s) => s.sandboxId);
  if (foreign && selected) {
    return (
      <EmptyState
        title="Not your sandbox"
        action={
          <Link className="button primary" to={pathOf('deliveries', selected)}>
            Open your deliveries
          </Link>
        }
      >
        You are signed in to <code>{selected}</code>; this server shows each person only their own sandbox. To open{' '}
        <code>{foreign}</code>, sign out and sign in with its credentials.
      </EmptyState>
    );
  }
  if (route.view === 'portal') return <PortalView />;
  if (route.view === 'home') return null;
  if (route.view === 'not-found') {
    return (
      <EmptyState
        title="No such page"
        action={
          <Link className="button" to="/">
            Go to the inspector
          </Link>
        }
      >
        <code>{route.path}</code> is not a page of Sandbay.
      </EmptyState>
    );
  }
  if (check === 'missing') {
    return (
      <EmptyState
        title="No such sandbox"
        action={
          <Link className="button primary" to="/portal/sandbox">
            Open the portal
          </Link>
        }
      >
        <code>{route.sandboxId}</code> does not exist here (it may have been deleted). Pick or create a sandbox in the
        portal.
      </EmptyState>
    );
  }
  // A sandbox page mounts only once the stores have switched to its sandbox (see store/live.ts),
  // and remounts on a switch, so it never shows or loads another sandbox's data.
  if (check === 'checking' || selected !== route.sandboxId) return <p className="muted page">Loading…</p>;
  const key = `${route.view}:${route.sandboxId}`;
  switch (route.view) {
    case 'deliveries':
    case 'dlq':
      return <DeliveriesView key={key} mode={route.view} sandboxId={route.sandboxId} deliveryId={route.deliveryId} />;
    case 'endpoints':
      return <EndpointsView key={key} sandboxId={route.sandboxId} />;
    case 'settings':
      return <SettingsView key={key} sandboxId={route.sandboxId} />;
  }
}

/** The inspector: routes to a page, keeping the selected sandbox in step with the URL. */
export function App() {
  const route = useRoute();
  const { authNeeded, sandboxesLoaded, sandboxes } = useApp();
  const signIn = useSignIn((s) => s.status);
  useEffect(() => void useSignIn.getState().load(), []);
  const foreign = useForeignSandbox(route);
  const routeSandbox = 'sandboxId' in route && !foreign ? route.sandboxId : undefined;
  useEffect(() => {
    // Until the server says whether it is shared (and the browser has signed in), a deep link's
    // sandbox may not be this browser's to open.
    if ((signIn !== 'local' && signIn !== 'signed-in') || foreign) return;
    if (routeSandbox) return useApp.getState().selectSandbox(routeSandbox);
    if (!sandboxesLoaded) return;
    const last = lastSandboxId();
    const fallback = sandboxes.find((s) => s.id === last)?.id ?? sandboxes[0]?.id ?? null;
    if (!useApp.getState().sandboxId && fallback) useApp.getState().selectSandbox(fallback);
    if (route.view === 'home')
      navigate(fallback ? pathOf('deliveries', fallback) : '/portal/sandbox', { replace: true });
  }, [signIn, routeSandbox, foreign, route.view, sandboxesLoaded, sandboxes]);
  if (signIn === 'signed-out' || signIn === 'expired')
    return (
      <>
        <SandboxSignIn expired={signIn === 'expired'} />
        <Toasts />
      </>
    );
  if (authNeeded) return <SignIn />;
  return (
    <Shell route={route}>
      <ErrorBoundary resetKey={window.location.pathname}>
        {sandboxesLoaded ? <Page route={route} /> : <p className="muted page">Loading…</p>}
      </ErrorBoundary>
      <Toasts />
    </Shell>
  );
}
