import { useState } from 'react';

/** Writes text to the clipboard, falling back to a hidden textarea where the async API is refused. */
async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

/** A small copy button; `label` names what it copies, for screen readers and tooltips. */
export function CopyButton({
  value,
  label,
  text = 'Copy',
}: {
  value: string | (() => Promise<string> | string);
  label: string;
  text?: string;
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await copyText(typeof value === 'function' ? await value() : value);
    setCopied(true);
    setTimeout(() => setCopied(false), 1200);
  };
  return (
    <button
      type="button"
      className="small"
      onClick={() => void copy()}
      aria-label={`Copy ${label}`}
      title={`Copy ${label}`}
    >
      {copied ? 'Copied' : text}
    </button>
  );
}

/** A value in monospace with a copy button beside it. */
export function Copyable({ value, label }: { value: string; label: string }) {
  return (
    <span className="copyable">
      <code title={value}>{value}</code>
      <CopyButton value={value} label={label} />
    </span>
  );
}
