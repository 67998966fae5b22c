export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Sandbay</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { display: grid; place-items: center; min-height: 100vh; margin: 0; background: Canvas; color: CanvasText; }
  main { max-width: 28rem; padding: 2rem; border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); border-radius: 8px; }
  h1 { font-size: 1.2rem; margin-top: 0; }
  code, li { font-family: ui-monospace, monospace; font-size: .85rem; }
  ul { max-height: 10rem; overflow: auto; padding-left: 1.2rem; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
  button { font: inherit; padding: .5rem 1.2rem; border-radius: 6px; border: 1px solid; cursor: pointer; }
  button[value=approve] { background: #2563eb; color: white; border-color: #2563eb; }
</style></head><body><main>${body}</main></body></html>`;

/** The consent page of /oauth/authorize: every request parameter rides along in hidden fields. */
export function consentPage(input: {
  params: Record<string, string | undefined>;
  clientId: string;
  sandboxName: string;
  scope: string;
  sessionNeeded: boolean;
}): string {
  const hidden = Object.entries(input.params)
    .filter(([k, v]) => v !== undefined && k !== 'decision')
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v!)}">`)
    .join('');
  const scopes = input.scope
    .split(' ')
    .map((s) => `<li>${escapeHtml(s)}</li>`)
    .join('');
  return page(
    'Authorize',
    `
  <h1>Authorize <code>${escapeHtml(input.clientId)}</code>?</h1>
  <p>It asks to act on the sandbox <strong>${escapeHtml(input.sandboxName)}</strong> with these scopes:</p>
  <ul>${scopes}</ul>
  <p>It will be sent back to <code>${escapeHtml(input.params.redirect_uri ?? '')}</code>.</p>${
    input.sessionNeeded
      ? `\n  <p>This Sandbay is shared: only a browser signed in to <strong>${escapeHtml(input.sandboxName)}</strong> (in <a href="/">the inspector</a>) can approve.</p>`
      : ''
  }
  <form method="post" action="/oauth/authorize">${hidden}
    <div class="actions">
      <button type="submit" name="decision" value="approve">Approve</button>
      <button type="submit" name="decision" value="deny">Deny</button>
    </div>
  </form>`,
  );
}

export function errorPage(message: string): string {
  return page('Authorization error', `<h1>This authorization request cannot proceed</h1><p>${escapeHtml(message)}</p>`);
}

/** A shared server's consent without a session of the sandbox: who may approve, and how to become them. */
export function signInFirstPage(input: { sandboxName: string; reason: string }): string {
  return page(
    'Sign in to approve',
    `
  <h1>Sign in to the sandbox <strong>${escapeHtml(input.sandboxName)}</strong> to approve</h1>
  <p>${escapeHtml(input.reason)}</p>
  <p>This Sandbay is shared: open <a href="/">the inspector</a> in this browser, sign in with the sandbox's
  client ID and secret, then go back to the consent page and press Approve again.</p>`,
  );
}
