import { schemeNames, type SchemeName } from '../../../shared/schemes.ts';

const about: Record<SchemeName, string> = {
  sandbay: 'X-Service-Signature: t=…,v1=<hex HMAC>',
  'standard-webhooks': 'webhook-signature: v1,<base64 HMAC> (Svix and the services on it)',
  'standard-webhooks-ed25519': 'webhook-signature: v1a,<base64 ed25519>, verified with a public key',
};

/**
 * The signing schemes of an endpoint: one, or several at once while receivers migrate (every scheme's headers on each
 * request).
 */
export function SchemePicker({
  value,
  onChange,
  disabled,
}: {
  value: readonly SchemeName[];
  onChange: (next: SchemeName[]) => void;
  disabled?: boolean;
}) {
  const toggle = (name: SchemeName, on: boolean) => {
    const next = on ? [...value, name] : value.filter((s) => s !== name);
    if (next.length > 0) onChange(schemeNames.filter((s) => next.includes(s)));
  };
  return (
    <fieldset className="scheme-picker" data-testid="scheme-picker">
      <legend className="label">
        Signing{' '}
        {value.length > 1 && (
          <span className="faint">(several at once: each scheme&apos;s headers on every request)</span>
        )}
      </legend>
      {schemeNames.map((name) => (
        <label key={name} className="row nowrap">
          <input
            type="checkbox"
            checked={value.includes(name)}
            disabled={disabled || (value.length === 1 && value[0] === name)}
            onChange={(e) => toggle(name, e.target.checked)}
          />
          <code>{name}</code> <span className="faint">{about[name]}</span>
        </label>
      ))}
    </fieldset>
  );
}
