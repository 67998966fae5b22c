import { useRef, useState } from 'react';
import { fileRequest, saveDownload, type ApiProblem } from '../api/client.ts';
import type { CreatedSandbox } from '../../shared/api-types.ts';
import { sandboxFileMediaType, type ImportReport } from '../../shared/sandbox-file.ts';
import { Modal } from '../components/Dialog.tsx';
import { navigate, pathOf } from '../router.ts';
import { useApp } from '../store/app.ts';
import { counted } from '../util/format.ts';

/**
 * What an import says in a toast: the new sandbox, whether its endpoints sign with new secrets, and what they would
 * call.
 */
const importedText = (name: string, report: ImportReport) =>
  `Imported "${name}": ${counted(report.rows.deliveries ?? 0, 'delivery', 'deliveries')}, ${counted(report.rows.orders ?? 0, 'order')}.` +
  (report.newSecrets.length > 0
    ? ` ${counted(report.newSecrets.length, 'endpoint')} ${report.newSecrets.length === 1 ? 'signs' : 'sign'} with a new secret (the file had none).`
    : '') +
  (report.receivers.endpoints.length > 0
    ? ` Its endpoints arrived paused, nothing is sent until you resume them (Endpoints → Resume all): ${report.receivers.endpoints.map((e) => e.url).join(', ')}.`
    : '');

/** The sandbox menu: export the current sandbox as one file, or import one as a new sandbox. */
export function SandboxMenu({ canImport }: { canImport: boolean }) {
  const sandboxId = useApp((s) => s.sandboxId);
  const [exporting, setExporting] = useState(false);
  const [includeSecrets, setIncludeSecrets] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const menu = useRef<HTMLDetailsElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const close = () => menu.current?.removeAttribute('open');

  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      await saveDownload(
        await fileRequest('GET', `/api/v1/sandbox/export${includeSecrets ? '?includeSecrets=true' : ''}`),
        'sandbox.sandbay',
      );
      setExporting(false);
      useApp.getState().toast('success', `Exported ${sandboxId}${includeSecrets ? ' with its secrets' : ''}.`);
    } catch (err) {
      setError((err as ApiProblem).message);
    } finally {
      setBusy(false);
    }
  };

  const upload = async (file: File) => {
    try {
      const res = await fileRequest('POST', '/api/v1/sandboxes/import', file, sandboxFileMediaType);
      const created = (await res.json()) as CreatedSandbox & { report: ImportReport };
      useApp.getState().addSandbox(created);
      navigate(pathOf('deliveries', created.sandbox.id));
      useApp.getState().toast('success', importedText(created.sandbox.name, created.report));
    } catch (err) {
      useApp.getState().toast('error', `Import of ${file.name} failed: ${(err as ApiProblem).message}`);
    }
  };

  // The dialog and the file input sit outside the <details>: a closed one hides what it contains.
  return (
    <>
      <details className="menu" ref={menu}>
        {/* Named for what it does: beside the sandbox switcher, a second "Sandbox" read as the same control. */}
        <summary className="button small" aria-label={`Sandbox menu: ${canImport ? 'export or import' : 'export'}`}>
          {canImport ? 'Export / import' : 'Export'} ▾
        </summary>
        <div className="menu-items" role="menu">
          <button
            type="button"
            role="menuitem"
            disabled={!sandboxId}
            onClick={() => {
              close();
              setExporting(true);
            }}
          >
            Export…
          </button>
          {canImport && (
            <button
              type="button"
              role="menuitem"
              onClick={() => {
                close();
                picker.current?.click();
              }}
            >
              Import…
            </button>
          )}
        </div>
      </details>
      <input
        ref={picker}
        type="file"
        accept=".sandbay,application/gzip"
        hidden
        aria-label="Sandbox file to import"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          // Cannot reject: upload() catches: a failure is a toast.
          if (file) void upload(file);
        }}
      />
      <Modal
        open={exporting}
        onClose={() => setExporting(false)}
        title="Export sandbox"
        actions={
          <>
            <button type="button" onClick={() => setExporting(false)}>
              Cancel
            </button>
            <button type="button" className="primary" disabled={busy} onClick={() => void download()}>
              {busy ? 'Exporting…' : 'Download'}
            </button>
          </>
        }
      >
        <p>
          One file with the commerce data, endpoints, catchers, events, every delivery with its attempts, the DLQ and
          the sandbox clock. Import it on any Sandbay to get a sandbox that behaves the same.
        </p>
        <label className="row nowrap">
          <input type="checkbox" checked={includeSecrets} onChange={(e) => setIncludeSecrets(e.target.checked)} />
          Include endpoint secrets (otherwise the import issues new ones)
        </label>
        {error && (
          <div className="callout bad" role="alert">
            {error}
          </div>
        )}
      </Modal>
    </>
  );
}
