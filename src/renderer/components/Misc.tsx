import type { ReactNode } from 'react';
import type { DeliveryStatus } from '../../shared/api-types.ts';
import { navigate } from '../router.ts';

/** A delivery's status as a coloured badge. */
export function StatusBadge({ status }: { status: DeliveryStatus }) {
  return <span className={`badge ${status}`}>{status}</span>;
}

/** What an empty view shows: what it is for and what to do next. */
export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      {children && <p>{children}</p>}
      {action}
    </div>
  );
}

/** An in-app link: a real <a> (new tabs work) that navigates without a reload. */
export function Link({
  to,
  children,
  className,
  ...rest
}: {
  to: string;
  children: ReactNode;
  className?: string;
  'aria-current'?: 'page' | undefined;
}) {
  return (
    <a
      href={to}
      className={className}
      {...rest}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** An inline error message for a failed action. */
export function InlineError({ error }: { error: Error | null | undefined }) {
  if (!error) return null;
  return (
    <div className="field-error" role="alert">
      {error.message}
    </div>
  );
}
