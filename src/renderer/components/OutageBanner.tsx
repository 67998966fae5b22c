import { useOutage } from '../store/outage.ts';
import { ClockTime } from './ClockTime.tsx';

const what = {
  database: 'The database is not answering',
  storage: 'The disk holding the database is full: changes are not saved',
  server: 'Sandbay is not answering',
} as const;

/** Over every view while an outage lasts: what is down, since when, and that the page catches up by itself. */
export function OutageBanner() {
  const outage = useOutage((s) => s.outage);
  if (!outage) return null;
  return (
    <div className="outage-banner callout bad" role="alert" data-testid="outage">
      <strong>{what[outage.kind]}</strong> since <ClockTime at={outage.since} clock="real" />. What you see was loaded
      before;{' '}
      {outage.kind === 'storage' ? 'free some disk space and try again.' : 'it updates by itself once it is back.'}
    </div>
  );
}
