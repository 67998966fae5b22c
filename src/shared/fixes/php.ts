import type { LanguageFixes } from './types.ts';

export const phpFixes: LanguageFixes = {
  name: 'PHP',
  frameworks: ['Laravel'],
  rawBody:
    "verify file_get_contents('php://input') as read, then json_decode it; never json_encode(json_decode($payload, true))",
  key: "hash_hmac('sha256', $t . '.' . $payload, $secret) with the whole whsec_… string: no substr($secret, 6) or str_replace('whsec_', …), no base64_decode",
  encoding: 'hash the body as read: no utf8_decode, mb_convert_encoding or iconv before verifying',
  wholeBody: 'read php://input whole (file_get_contents), not a fread of a fixed length',
  bodyLimit: 'post_max_size of at least 1M in php.ini (and client_max_body_size in front of it)',
  byFramework: {
    Laravel: {
      rawBody:
        'verify $request->getContent() as read, then json_decode it; never json_encode($request->all()) or json_encode($request->json()->all())',
    },
  },
};
