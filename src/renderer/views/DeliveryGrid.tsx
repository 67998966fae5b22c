import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef, type KeyboardEvent } from 'react';
import type { DeliverySummary } from '../../shared/api-types.ts';
import { useNow } from '../components/hooks.ts';
import { StatusBadge } from '../components/Misc.tsx';
import { useApp } from '../store/app.ts';
import { useEndpoints } from '../store/endpoints.ts';
import { formatCountdown, outcomeText } from '../util/format.ts';
import { ClockTime } from '../components/ClockTime.tsx';

const rowHeight = 32;
const loadMoreWithin = 30;

export interface GridProps {
  rows: DeliverySummary[];
  selectedId?: string;
  compact: boolean;
  onOpen: (id: string) => void;
  onNearEnd: () => void;
  /** An action button per row (the DLQ's Replay). */
  rowAction?: { label: string; run: (id: string) => void };
  /** A checkbox per row to pick it (for a replay of the picked rows). */
  picking?: { picked: ReadonlySet<string>; toggle: (id: string) => void };
  label: string;
}

/**
 * The next attempt's countdown; none while the endpoint is off (a 410 Gone or a user turned it off): it waits for it.
 */
function NextAttempt({ at, endpointId, paused }: { at: string | null; endpointId: string | null; paused: boolean }) {
  const now = useNow();
  const offset = useApp((s) => s.clockOffsetMs);
  // The endpoints store follows the live stream (a 410 reloads it), so a row created since still says it waits.
  const disabled = useEndpoints((s) =>
    s.loaded ? s.endpoints.find((e) => e.id === endpointId)?.enabled === false : paused,
  );
  if (endpointId && disabled)
    return (
      <span className="warn" title="Its endpoint is disabled: enable it to resume">
        paused
      </span>
    );
  if (!at) return <span className="faint">—</span>;
  return <span>{formatCountdown(Date.parse(at), now + offset)}</span>;
}

// Rows share a handful of endpoint URLs: parse each once.
const endpointTexts = new Map<string, string>();
const endpointText = (url: string | null) => {
  if (!url) return '—';
  let text = endpointTexts.get(url);
  if (text === undefined) {
    try {
      const u = new URL(url);
      text = `${u.host}${u.pathname}`;
    } catch {
      text = url;
    }
    if (endpointTexts.size > 500) endpointTexts.clear();
    endpointTexts.set(url, text);
  }
  return text;
};

const Row = memo(function Row({
  row,
  index,
  selected,
  compact,
  onOpen,
  rowAction,
  top,
  picked,
  onPick,
}: {
  row: DeliverySummary;
  index: number;
  selected: boolean;
  compact: boolean;
  top: number;
  onOpen: (id: string) => void;
  rowAction?: GridProps['rowAction'];
  picked?: boolean;
  onPick?: (id: string) => void;
}) {
  return (
    <div
      role="row"
      id={`row-${row.id}`}
      aria-rowindex={index + 2}
      aria-selected={selected}
      className={`grid-row${selected ? ' selected' : ''}`}
      style={{ transform: `translateY(${top}px)` }}
      onClick={() => onOpen(row.id)}
      data-delivery-id={row.id}
    >
      <span role="gridcell" className="c-status">
        <StatusBadge status={row.status} />
      </span>
      <span
        role="gridcell"
        className="c-topic"
        title={row.check ? `Sent by the receiver check, case ${row.check.case}` : undefined}
      >
        {/* A check's probes sit among real deliveries: mark them so "x.unknown" or a tampered body is not taken for a
            real event. */}
        {row.check && (
          <span className="tag" data-testid="check-tag">
            check
          </span>
        )}{' '}
        {row.topic}
      </span>
      <span role="gridcell" className="c-id mono">
        {onPick && (
          <input
            type="checkbox"
            className="pick"
            tabIndex={-1}
            aria-label={`Pick ${row.id}`}
            checked={picked}
            onClick={(e) => e.stopPropagation()}
            onChange={() => onPick(row.id)}
          />
        )}
        {row.id}
      </span>
      {!compact && (
        <span role="gridcell" className="c-endpoint mono" title={row.url ?? ''}>
          {endpointText(row.url)}
        </span>
      )}
      <span role="gridcell" className="c-attempts">
        {row.attemptCount}
      </span>
      <span
        role="gridcell"
        className={`c-last ${row.lastStatus !== null && row.lastStatus < 300 && !row.lastError ? 'ok' : row.lastError || row.lastStatus ? 'bad' : ''}`}
        title={row.lastError ?? ''}
      >
        {row.attemptCount ? outcomeText(row.lastStatus, row.lastError) : '—'}
      </span>
      <span role="gridcell" className="c-next">
        {row.status === 'pending' ? (
          <NextAttempt at={row.nextAttemptAt} endpointId={row.endpointId} paused={row.paused !== null} />
        ) : (
          <span className="faint">—</span>
        )}
      </span>
      {!compact && (
        <span role="gridcell" className="c-created mono">
          <ClockTime at={row.createdAt} clock="sandbox" />
        </span>
      )}
      {rowAction && (
        <span role="gridcell" className="c-action">
          <button
            type="button"
            className="small"
            tabIndex={-1}
            aria-label={`${rowAction.label} ${row.id}`}
            onClick={(e) => {
              e.stopPropagation();
              rowAction.run(row.id);
            }}
          >
            {rowAction.label}
          </button>
        </span>
      )}
    </div>
  );
});

/**
 * The delivery list: virtualized (only the visible rows are in the DOM, so 10,000 stay
 * smooth), one tab stop, arrow keys move the selection and open the delivery.
 */
export function DeliveryGrid({ rows, selectedId, compact, onOpen, onNearEnd, rowAction, picking, label }: GridProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const selectedIndex = selectedId ? rows.findIndex((r) => r.id === selectedId) : -1;

  const lastIndex = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (rows.length > 0 && lastIndex >= rows.length - loadMoreWithin) onNearEnd();
  }, [lastIndex, rows.length, onNearEnd]);

  const move = (index: number) => {
    const clamped = Math.max(0, Math.min(rows.length - 1, index));
    if (!rows[clamped]) return;
    virtualizer.scrollToIndex(clamped, { align: 'auto' });
    onOpen(rows[clamped].id);
  };
  const onKey = (e: KeyboardEvent) => {
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 320) / rowHeight) - 1);
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(selectedIndex + 1),
      ArrowUp: () => move(selectedIndex < 0 ? 0 : selectedIndex - 1),
      PageDown: () => move(selectedIndex + page),
      PageUp: () => move(selectedIndex - page),
      Home: () => move(0),
      End: () => move(rows.length - 1),
    };
    const action = keys[e.key];
    if (!action) return;
    e.preventDefault();
    action();
  };

  return (
    <div
      className={`grid${compact ? ' compact' : ''}${rowAction ? ' with-action' : ''}`}
      role="grid"
      aria-label={label}
      aria-rowcount={rows.length + 1}
      aria-activedescendant={selectedIndex >= 0 ? `row-${selectedId}` : undefined}
      tabIndex={0}
      onKeyDown={onKey}
    >
      <div role="row" aria-rowindex={1} className="grid-row grid-head">
        <span role="columnheader" className="c-status">
          Status
        </span>
        <span role="columnheader" className="c-topic">
          Topic
        </span>
        <span role="columnheader" className="c-id">
          Delivery
        </span>
        {!compact && (
          <span role="columnheader" className="c-endpoint">
            Endpoint
          </span>
        )}
        <span role="columnheader" className="c-attempts" title="Attempts">
          #
        </span>
        <span role="columnheader" className="c-last">
          Response
        </span>
        <span role="columnheader" className="c-next">
          Next
        </span>
        {!compact && (
          <span role="columnheader" className="c-created">
            Created
          </span>
        )}
        {rowAction && (
          <span role="columnheader" className="c-action">
            <span className="visually-hidden">Actions</span>
          </span>
        )}
      </div>
      <div ref={scroller} className="grid-body" data-testid="delivery-scroller">
        <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => (
            // Keyed by slot, not by delivery: scrolling re-fills the same few row elements
            // instead of creating and removing DOM nodes for every row that passes by.
            <Row
              key={item.index % (items.length + 1)}
              row={rows[item.index]}
              index={item.index}
              top={item.start}
              selected={rows[item.index].id === selectedId}
              compact={compact}
              onOpen={onOpen}
              rowAction={rowAction}
              picked={picking?.picked.has(rows[item.index].id)}
              onPick={picking?.toggle}
            />
          ))}
        </div>
      </div>
    </div>
  );
}
