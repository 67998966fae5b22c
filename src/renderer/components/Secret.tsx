import { useState } from 'react';
import { maskSecret } from '../../shared/mask-secret.ts';
import { CopyButton } from './Copy.tsx';

/** A secret shown masked until the user asks; copying does not need revealing it. */
export function Secret({ value, label }: { value: string; label: string }) {
  const [shown, setShown] = useState(false);
  return (
    <span className="copyable">
      <code data-secret={shown ? 'revealed' : 'masked'}>{shown ? value : maskSecret(value)}</code>
      <button
        type="button"
        className="small"
        aria-pressed={shown}
        aria-label={`${shown ? 'Hide' : 'Reveal'} ${label}`}
        onClick={() => setShown(!shown)}
      >
        {shown ? 'Hide' : 'Reveal'}
      </button>
      <CopyButton value={value} label={label} />
    </span>
  );
}
