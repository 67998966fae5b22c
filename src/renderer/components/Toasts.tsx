import { useApp } from '../store/app.ts';
import { Link } from './Misc.tsx';

/**
 * Transient confirmations and errors, announced politely; they fade on their own, and hovering holds
 * them. At most two, bottom left (over the list, never over the detail panel on the right); repeats of
 * one kind collapse into one toast with a count.
 */
export function Toasts() {
  const toasts = useApp((s) => s.toasts);
  const dismiss = useApp((s) => s.dismiss);
  const hold = useApp((s) => s.holdToasts);
  return (
    <div
      className="toasts"
      role="status"
      aria-live="polite"
      onMouseEnter={() => hold(true)}
      onMouseLeave={() => hold(false)}
      onFocus={() => hold(true)}
      onBlur={() => hold(false)}
    >
      {toasts.map((t) => (
        <div key={t.id} className={`toast ${t.kind}${t.leaving ? ' leaving' : ''}`} data-kind={t.kind}>
          <span>{t.text}</span>
          {t.count > 1 && (
            <span className="toast-count" aria-label={`${t.count} times`}>
              ×{t.count}
            </span>
          )}
          {t.link && <Link to={t.link.href}>{t.link.label}</Link>}
          <button type="button" className="small ghost" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
