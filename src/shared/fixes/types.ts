/** The languages the receiver check and the doctor give fixes in (the receivers docs cover each). */
export type ReceiverLanguage = 'node' | 'python' | 'php' | 'go' | 'ruby';

/** What Sandbay could tell about a receiver: its language, and its framework when known. */
export interface ReceiverStack {
  language: ReceiverLanguage;
  /** As its users spell it: Flask, FastAPI, Django, Express, Fastify, Next.js, Laravel, Rails, Sinatra … */
  framework?: string;
}

/**
 * One language's words for each fix. Each entry is a sentence fragment naming the code to write;
 * `byFramework` overrides it where the framework has its own way.
 */
export interface LanguageFixes {
  name: string;
  frameworks: readonly string[];
  /** How to get the raw body bytes, and what not to do instead (re-serialising). */
  rawBody: string;
  /** The HMAC key: the whole secret string as UTF-8. */
  key: string;
  /** Keep the bytes as they came: no charset conversion before verifying. */
  encoding: string;
  /** Read the whole body (not a fixed-size or first-chunk read). */
  wholeBody: string;
  /** Accept bodies of at least 1 MiB. */
  bodyLimit: string;
  byFramework: Record<string, Partial<Pick<LanguageFixes, 'rawBody' | 'encoding' | 'wholeBody' | 'bodyLimit'>>>;
}
