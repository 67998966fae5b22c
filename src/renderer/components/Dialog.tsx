import { useEffect, useRef, useState, type ReactNode } from 'react';

/** A modal built on <dialog>: focus moves in, Escape closes, focus returns after. */
export function Modal({
  open,
  onClose,
  title,
  children,
  actions,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  actions: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} onClose={onClose} aria-labelledby="dialog-title">
      {open && (
        <>
          <div className="dialog-body">
            <h2 id="dialog-title">{title}</h2>
            {children}
          </div>
          <div className="dialog-actions">{actions}</div>
        </>
      )}
    </dialog>
  );
}

/** A button that asks before doing something that cannot be undone. */
export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  onConfirm,
  danger = false,
  className,
  disabled,
}: {
  label: ReactNode;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  danger?: boolean;
  className?: string;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className={className ?? (danger ? 'danger' : undefined)}
        disabled={disabled}
        onClick={() => setOpen(true)}
      >
        {label}
      </button>
      <Modal
        open={open}
        onClose={() => setOpen(false)}
        title={title}
        actions={
          <>
            <button type="button" onClick={() => setOpen(false)} autoFocus>
              Cancel
            </button>
            <button
              type="button"
              className={danger ? 'danger solid' : 'primary'}
              disabled={busy}
              onClick={() => void confirm()}
            >
              {busy ? 'Working…' : confirmLabel}
            </button>
          </>
        }
      >
        <div>{message}</div>
        {error && (
          <div className="field-error" role="alert">
            {error}
          </div>
        )}
      </Modal>
    </>
  );
}
