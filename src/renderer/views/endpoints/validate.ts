/** Inline check of a receiver URL, matching the server's rule (absolute http or https). */
export function urlProblem(value: string): string | null {
  const text = value.trim();
  if (!text) return 'Enter the URL your receiver listens on, e.g. http://localhost:3000/webhooks.';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Not a URL. Include the scheme: http://localhost:3000/webhooks.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `Only http and https receivers are supported, not ${url.protocol.replace(':', '')}.`;
  if (text.length > 2048) return 'At most 2048 characters.';
  return null;
}

/** Test webhooks go to a registered endpoint (whe_…) or any http(s) URL. */
export function targetProblem(value: string): string | null {
  return /^whe_\w+$/.test(value.trim()) ? null : urlProblem(value);
}
