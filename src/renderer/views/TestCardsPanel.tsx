import { useEffect, useState } from 'react';
import { api } from '../api/client.ts';
import type { TestCard } from '../../shared/api-types.ts';
import { CopyButton } from '../components/Copy.tsx';
import { useAction } from '../components/hooks.ts';
import { InlineError } from '../components/Misc.tsx';

// Grouped for reading; the copy button copies the bare digits the API takes.
const groups = (number: string) => number.replace(/(.{4})/g, '$1 ').trim();

/** The test card table (seed/test-cards.json, served by GET /api/v1/payments/test-cards). */
export function TestCardsPanel({ sandboxId }: { sandboxId: string }) {
  const [cards, setCards] = useState<TestCard[] | null>(null);
  const load = useAction(async () =>
    setCards((await api.get<{ data: TestCard[] }>('/api/v1/payments/test-cards')).data),
  );
  useEffect(() => void load.run(), [sandboxId]);
  return (
    <section className="panel" aria-labelledby="cards-title">
      <div className="panel-head">
        <h2 id="cards-title">Test cards</h2>
        <span className="faint">
          pay an order with POST /api/v1/payments; any future expiry, a 3-digit CVC (4 for Amex)
        </span>
      </div>
      <InlineError error={load.error} />
      {cards && (
        <table className="data">
          <thead>
            <tr>
              <th>Number</th>
              <th>Brand</th>
              <th>Provider</th>
              <th>Result</th>
              <th>Refunds</th>
              <th>What it does</th>
            </tr>
          </thead>
          <tbody>
            {cards.map((c) => (
              <tr key={c.number}>
                <td>
                  <span className="copyable">
                    <code>{groups(c.number)}</code>
                    <CopyButton value={c.number} label={`card ${c.number}`} />
                  </span>
                </td>
                <td>{c.brand}</td>
                <td>{c.provider}</td>
                <td>
                  {c.outcome === 'declined' ? (
                    <span className="mono">{c.declineCode}</span>
                  ) : (
                    c.outcome.replace('_', ' ')
                  )}
                </td>
                <td>{c.refund}</td>
                <td>{c.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
