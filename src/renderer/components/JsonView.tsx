import { useMemo } from 'react';

const token = /("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

/** Pretty-printed JSON with light syntax colouring (text that is not JSON is shown as is). */
export function JsonView({ text, label }: { text: string; label: string }) {
  const parts = useMemo(() => {
    let pretty: string;
    try {
      pretty = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return [text];
    }
    const out: (string | { cls: string; text: string })[] = [];
    let last = 0;
    for (const m of pretty.matchAll(token)) {
      out.push(pretty.slice(last, m.index));
      if (m[1]) {
        out.push({ cls: m[2] ? 'j-key' : 'j-str', text: m[1] });
        if (m[2]) out.push(m[2]);
      } else if (m[3]) out.push({ cls: 'j-num', text: m[3] });
      else out.push({ cls: 'j-lit', text: m[4] });
      last = m.index + m[0].length;
    }
    out.push(pretty.slice(last));
    return out;
  }, [text]);
  return (
    <pre className="code" aria-label={label} tabIndex={0}>
      {parts.map((p, i) =>
        typeof p === 'string' ? (
          p
        ) : (
          <span key={i} className={p.cls}>
            {p.text}
          </span>
        ),
      )}
    </pre>
  );
}
