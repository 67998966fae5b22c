import type { ReactNode } from 'react';
import { useNow } from '../components/hooks.ts';
import { Link } from '../components/Misc.tsx';
import { FailedJobsBanner } from '../components/FailedJobsBanner.tsx';
import { OutageBanner } from '../components/OutageBanner.tsx';
import { navigate, pathOf, type Route } from '../router.ts';
import { useApp } from '../store/app.ts';
import { useSignIn } from '../store/signin.ts';
import { formatDuration } from '../util/format.ts';
import { SandboxMenu } from './SandboxMenu.tsx';
import { ClockTime } from '../components/ClockTime.tsx';

const connectionText = {
  idle: 'Not connected',
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
} as const;

function SandboxSwitcher({ route }: { route: Route }) {
  const sandboxes = useApp((s) => s.sandboxes);
  const sandboxId = useApp((s) => s.sandboxId);
  const select = useApp((s) => s.selectSandbox);
  if (sandboxes.length === 0) return null;
  const change = (id: string) => {
    if (route.view === 'portal' || route.view === 'home' || route.view === 'not-found') return select(id);
    navigate(pathOf(route.view === 'dlq' ? 'dlq' : route.view, id));
  };
  return (
    <label className="row nowrap switcher">
      <span className="label">Sandbox</span>
      <select value={sandboxId ?? ''} onChange={(e) => change(e.target.value)} aria-label="Sandbox">
        {!sandboxId && <option value="">Choose…</option>}
        {sandboxes.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name} · {s.id}
          </option>
        ))}
      </select>
    </label>
  );
}

/** On a shared server: the one sandbox this browser is signed in to, and the way out. */
function SignedInAs() {
  const sandboxId = useApp((s) => s.sandboxId);
  const name = useApp((s) => s.sandboxes.find((x) => x.id === s.sandboxId)?.name);
  return (
    <span className="row nowrap switcher" data-testid="signed-in-as">
      <span className="label">Sandbox</span>
      <span>
        {name && name !== sandboxId ? `${name} · ` : ''}
        <span className="mono">{sandboxId}</span>
      </span>
      <button
        type="button"
        className="small"
        onClick={() =>
          void useSignIn
            .getState()
            .signOut()
            .then(() => navigate('/'))
        }
      >
        Sign out
      </button>
    </span>
  );
}

function HeaderClock() {
  const offset = useApp((s) => s.clockOffsetMs);
  const sandboxId = useApp((s) => s.sandboxId);
  const now = useNow();
  if (!sandboxId) return null;
  return (
    <Link to={pathOf('settings', sandboxId)} className="header-clock" aria-label="Sandbox clock: open clock and reset">
      <span className="label">Sandbox time</span>
      <span className="mono" data-testid="sandbox-time">
        <ClockTime at={now + offset} clock="sandbox" />
      </span>
      {offset >= 1000 && <span className="tag">+{formatDuration(offset)}</span>}
    </Link>
  );
}

function Nav({ route }: { route: Route }) {
  const sandboxId = useApp((s) => s.sandboxId);
  const item = (view: 'deliveries' | 'endpoints' | 'dlq' | 'settings', label: string) => {
    const current = 'sandboxId' in route && route.view === view;
    return sandboxId ? (
      <li>
        <Link to={pathOf(view, sandboxId)} aria-current={current ? 'page' : undefined}>
          {label}
        </Link>
      </li>
    ) : (
      <li>
        <span className="nav-disabled" title="Create or pick a sandbox first">
          {label}
        </span>
      </li>
    );
  };
  return (
    <nav className="sidebar" aria-label="Main">
      <h3 id="nav-webhooks">Webhooks</h3>
      <ul aria-labelledby="nav-webhooks">
        {item('deliveries', 'Deliveries')}
        {item('endpoints', 'Endpoints')}
        {item('dlq', 'DLQ')}
      </ul>
      <h3 id="nav-sandbox">Sandbox</h3>
      <ul aria-labelledby="nav-sandbox">
        <li>
          <Link to="/portal/sandbox" aria-current={route.view === 'portal' ? 'page' : undefined}>
            Portal
          </Link>
        </li>
        {item('settings', 'Clock & reset')}
      </ul>
    </nav>
  );
}

/** The frame around every page: header (sandbox, clock, live status), navigation, content. */
export function Shell({ route, children }: { route: Route; children: ReactNode }) {
  const connection = useApp((s) => s.connection);
  const shared = useSignIn((s) => s.shared);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand" aria-label="Sandbay">
          Sandbay
        </span>
        {shared ? <SignedInAs /> : <SandboxSwitcher route={route} />}
        <SandboxMenu canImport={!shared} />
        <span className="spacer" />
        <HeaderClock />
        <span className={`connection ${connection}`} role="status" aria-live="polite" data-testid="connection">
          {connectionText[connection]}
        </span>
      </header>
      <Nav route={route} />
      <OutageBanner />
      <main id="main" className="content" tabIndex={-1}>
        <FailedJobsBanner />
        {children}
      </main>
    </div>
  );
}
