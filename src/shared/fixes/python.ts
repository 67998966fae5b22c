import type { LanguageFixes } from './types.ts';

export const pythonFixes: LanguageFixes = {
  name: 'Python',
  frameworks: ['Flask', 'FastAPI', 'Django', 'http.server'],
  rawBody: 'verify the raw request bytes, then json.loads them; never json.dumps(json.loads(body))',
  key: 'hmac.new(secret.encode(), …) with the whole whsec_… string: no secret[6:] or removeprefix("whsec_"), no base64.b64decode',
  encoding: "hash the bytes as received; decode them as UTF-8 only to parse (never .decode('latin-1'))",
  wholeBody:
    "read exactly Content-Length bytes (self.rfile.read(int(self.headers['Content-Length']))), not a fixed-size read",
  bodyLimit: 'accept bodies of at least 1 MiB',
  byFramework: {
    Flask: {
      rawBody: 'verify request.get_data() (bytes), then json.loads it; never json.dumps(request.get_json())',
      bodyLimit: "app.config['MAX_CONTENT_LENGTH'] of at least 1 MiB",
    },
    FastAPI: {
      rawBody:
        'take a Request and verify await request.body() (bytes), then json.loads it; never json.dumps(await request.json()) or a Pydantic model dumped again',
    },
    Django: {
      rawBody: 'verify request.body (bytes), then json.loads it; never json.dumps(json.loads(request.body))',
      bodyLimit: 'DATA_UPLOAD_MAX_MEMORY_SIZE of at least 1 MiB (the default 2.5 MB is enough)',
    },
    'http.server': {
      rawBody:
        "verify self.rfile.read(int(self.headers['Content-Length'])) as read, then json.loads it; never json.dumps of the parsed event",
    },
  },
};
