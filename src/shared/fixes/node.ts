import type { LanguageFixes } from './types.ts';

export const nodeFixes: LanguageFixes = {
  name: 'Node.js',
  frameworks: ['Express', 'Fastify', 'Next.js', 'Koa'],
  rawBody:
    'verify the raw body as a Buffer before JSON.parse, never JSON.stringify of a parsed body (verifyWebhook from sandbay-receiver takes the Buffer)',
  key: "createHmac('sha256', secret) with the whole whsec_… string as it is (verifyWebhook does): no secret.replace('whsec_', ''), no Buffer.from(…, 'base64')",
  encoding: "keep the body a Buffer: no req.setEncoding('latin1'), no toString('latin1') or 'binary'",
  wholeBody: "collect every chunk (Buffer.concat of all 'data' events), not the first one",
  bodyLimit: 'accept bodies of at least 1 MiB on the webhook route',
  byFramework: {
    Express: {
      rawBody:
        "use express.raw({ type: 'application/json' }) on the webhook route instead of express.json(), and verify req.body (a Buffer); never JSON.stringify(req.body)",
      bodyLimit: "express.raw({ type: 'application/json', limit: '1mb' }) (the default limit is 100kb)",
    },
    Fastify: {
      rawBody:
        "register addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => done(null, body)) for the webhook route and verify request.body (a Buffer); never JSON.stringify(request.body)",
      bodyLimit: 'bodyLimit: 1048576 or more on the route',
    },
    'Next.js': {
      rawBody:
        'in a route handler verify await request.text() (Pages Router: export const config = { api: { bodyParser: false } } and read the stream); never JSON.stringify(await request.json())',
      bodyLimit: "Pages Router: api.bodyParser.sizeLimit '1mb' or more",
    },
    Koa: {
      rawBody: 'read ctx.req into a Buffer (no koa-bodyparser on the webhook route) and verify it before JSON.parse',
    },
  },
};
