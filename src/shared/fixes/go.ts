import type { LanguageFixes } from './types.ts';

export const goFixes: LanguageFixes = {
  name: 'Go',
  frameworks: ['net/http'],
  rawBody:
    'verify payload, _ := io.ReadAll(r.Body) as read, then json.Unmarshal it; never json.Marshal of a decoded map or struct (it sorts keys, drops fields and escapes <, >, &)',
  key: 'hmac.New(sha256.New, []byte(secret)) with the whole whsec_… string: no strings.TrimPrefix(secret, "whsec_"), no base64 decoding',
  encoding: 'hash the []byte as read: no charset conversion (charmap.ISO8859_1) before verifying',
  wholeBody: 'io.ReadAll(r.Body), not a single r.Body.Read into a fixed buffer',
  bodyLimit: 'http.MaxBytesReader(w, r.Body, 1<<20) or more',
  byFramework: {},
};
