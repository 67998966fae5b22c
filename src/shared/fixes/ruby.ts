import type { LanguageFixes } from './types.ts';

export const rubyFixes: LanguageFixes = {
  name: 'Ruby',
  frameworks: ['Rails', 'Sinatra'],
  rawBody: 'verify request.body.read as read, then JSON.parse it; never JSON.parse(body).to_json',
  key: "OpenSSL::HMAC.hexdigest('SHA256', secret, \"#{t}.#{payload}\") with the whole whsec_… string: no delete_prefix('whsec_'), no Base64.decode64",
  encoding: "hash the body as read (binary): no .encode('ISO-8859-1') before verifying",
  wholeBody: 'request.body.read with no length, after request.body.rewind',
  bodyLimit: 'accept bodies of at least 1 MiB (client_max_body_size in the proxy in front)',
  byFramework: {
    Rails: {
      rawBody:
        'verify request.raw_post, then JSON.parse it; never params.to_json or request.request_parameters.to_json',
    },
    Sinatra: {
      rawBody: 'request.body.rewind, then verify request.body.read, then JSON.parse it; never JSON.parse(body).to_json',
    },
  },
};
