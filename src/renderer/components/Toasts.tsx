import { useApp } from '../store/app.ts';
import { Link } from './Misc.tsx';

/** Transient confirmations and errors, announced politely. */
export function Toasts() {
  const toasts = useApp((s) => s.toasts);
  const dismiss = useApp((s) => s.dismiss);
  return (
    <div className="toasts" role="status" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast ${t.kind}`}>
          <span>{t.text}</span>
          {t.link && <Link to={t.link.href}>{t.link.label}</Link>}
          <button type="button" className="small ghost" aria-label="Dismiss" onClick={() => dismiss(t.id)}>×</button>
        </div>
      ))}
    </div>
  );
}
