import { useEffect, useState } from 'react';
import { categories, topicCategories } from '../../shared/topics.ts';
import { Field } from '../components/Field.tsx';
import { useDebounced } from '../components/hooks.ts';
import { useEndpoints } from '../store/endpoints.ts';
import type { ListFilters } from '../store/list.ts';

const searchPattern = /^(dlv|evt|ord)_[A-Za-z0-9_]{1,100}$/;

/** Topic, status and endpoint filters and the id search above a delivery list. */
export function FilterBar({
  filters,
  onChange,
  showStatus,
}: {
  filters: ListFilters;
  onChange: (f: ListFilters) => void;
  showStatus: boolean;
}) {
  const endpoints = useEndpoints((s) => s.endpoints);
  const [search, setSearch] = useState(filters.search ?? '');
  const settled = useDebounced(search.trim(), 300);
  const searchError =
    settled && !searchPattern.test(settled)
      ? 'Search takes a delivery id (dlv_…), an event id (evt_…) or an order id (ord_…).'
      : null;
  // Only the settled text drives the search, so typing does not fire a request per key.
  useEffect(() => {
    if (searchError) return;
    if ((settled || undefined) !== filters.search) onChange({ ...filters, search: settled || undefined });
  }, [settled, searchError]);
  const set = (patch: ListFilters) => onChange({ ...filters, ...patch });
  return (
    <div className="filters" role="search">
      <Field label="Topic">
        <select value={filters.topic ?? ''} onChange={(e) => set({ topic: e.target.value || undefined })}>
          <option value="">All topics</option>
          {categories.map((c) => (
            <optgroup key={c} label={c}>
              {topicCategories[c].map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </Field>
      {showStatus && (
        <Field label="Status">
          <select
            value={filters.status ?? ''}
            onChange={(e) => set({ status: (e.target.value || undefined) as ListFilters['status'] })}
          >
            <option value="">Any status</option>
            <option value="pending">pending</option>
            <option value="succeeded">succeeded</option>
            <option value="dead">dead</option>
          </select>
        </Field>
      )}
      <Field label="Endpoint">
        <select value={filters.endpointId ?? ''} onChange={(e) => set({ endpointId: e.target.value || undefined })}>
          <option value="">All endpoints</option>
          {endpoints.map((e) => (
            <option key={e.id} value={e.id}>
              {e.url}
            </option>
          ))}
        </select>
      </Field>
      {showStatus && (
        <label className="row align-end" title="A receiver check's requests, left out of the list unless shown">
          <input
            type="checkbox"
            checked={Boolean(filters.includeChecks)}
            onChange={(e) => set({ includeChecks: e.target.checked || undefined })}
          />
          Check probes
        </label>
      )}
      <Field label="Search" error={searchError} className="grow">
        <input
          className="mono"
          type="search"
          value={search}
          placeholder="dlv_…, evt_… or ord_…"
          onChange={(e) => setSearch(e.target.value)}
        />
      </Field>
    </div>
  );
}
