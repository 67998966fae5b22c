import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { loadSession } from './api/session.ts';
import { useApp } from './store/app.ts';
import { startLive } from './store/live.ts';
import { useOutage, watchHealth } from './store/outage.ts';
import { configureApi } from './api/client.ts';
import './styles/theme.css';
import './styles/controls.css';
import './styles/layout.css';
import './styles/views.css';
import { App } from './views/App.tsx';

useApp.getState().init(loadSession());
configureApi({
  onHealth: ({ outage, method }) =>
    outage ? useOutage.getState().report(outage) : useOutage.getState().recovered(method === 'GET' ? 'read' : 'write'),
});
watchHealth(useApp.getState().session.apiBase);
startLive().catch((err) => useApp.getState().toast('error', `Live updates failed to start: ${(err as Error).message}`));
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
