// The receiver pages' Standard Webhooks verifiers in Python, Go and PHP, run verbatim against the
// Standard Webhooks vectors and against fresh signatures: v1 made by the official standardwebhooks
// library, v1a by node:crypto (no Sandbay code signs anything here).
import assert from 'node:assert/strict';
import { sign as ed25519Sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { checkAnswers, runVerifier } from '../helpers/documented-verifiers.ts';
import { vectorKeyPair } from '../helpers/ed25519.ts';
import { requireTool, tools } from '../helpers/tools.ts';
import { receiverBlocks } from '../helpers/docs.ts';
import { signatureVectors } from '../helpers/vectors.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbay-standard-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The verifier: the first Standard Webhooks block of the language (the second is the receiver around it). */
function verifier(language: string): string {
  const blocks = receiverBlocks(`${language} standard-webhooks`);
  assert.equal(blocks.length, 2, `a Standard Webhooks verifier and receiver in ${language} in docs/receivers.md`);
  return blocks[0];
}

interface Case {
  name: string;
  payload: string;
  headers: Record<string, string>;
  keys: string[];
  expect: string;
  v1a?: boolean;
}

const { standardWebhooks: v1, standardWebhooksEd25519: v1a } = signatureVectors;
const secret = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;
const oldSecret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const { publicKey, privateKey } = vectorKeyPair;
const headers = (id: string, t: number, signature: string) => ({
  'webhook-id': id,
  'webhook-timestamp': String(t),
  'webhook-signature': signature,
});
const official = (s: string, id: string, t: number, body: string) => new Webhook(s).sign(id, new Date(t * 1000), body);
const ed25519 = (id: string, t: number, body: string) =>
  `v1a,${ed25519Sign(null, Buffer.from(`${id}.${t}.${body}`), privateKey).toString('base64')}`;

function cases(): Case[] {
  const out: Case[] = [];
  // The vectors are long past: a verifier that agrees with them stops at the clock, one that disagrees at the
  // signature.
  for (const [i, c] of v1.cases.entries()) {
    out.push({
      name: `v1 vector ${i}`,
      payload: c.body,
      headers: headers(c.id, c.timestamp, c.signature),
      keys: [c.secret],
      expect: 'timestamp_outside_tolerance',
    });
    out.push({
      name: `v1 vector ${i}, wrong secret`,
      payload: c.body,
      headers: headers(c.id, c.timestamp, c.signature),
      keys: [secret],
      expect: 'no_matching_signature',
    });
  }
  for (const s of v1.rotation.secrets) {
    out.push({
      name: 'v1 rotation vector, one secret',
      payload: v1.rotation.body,
      headers: headers(v1.rotation.id, v1.rotation.timestamp, v1.rotation.header),
      keys: [s],
      expect: 'timestamp_outside_tolerance',
    });
  }
  for (const [i, c] of v1a.cases.entries()) {
    out.push({
      name: `v1a vector ${i}`,
      payload: c.body,
      headers: headers(c.id, c.timestamp, c.signature),
      keys: [c.publicKey],
      expect: 'timestamp_outside_tolerance',
      v1a: true,
    });
    out.push({
      name: `v1a vector ${i}, other key`,
      payload: c.body,
      headers: headers(c.id, c.timestamp, c.signature),
      keys: [v1a.cases[1 - i].publicKey],
      expect: 'no_matching_signature',
      v1a: true,
    });
  }
  const body = v1.cases[2].body;
  const t = Math.floor(Date.now() / 1000);
  const id = 'dlv_fresh';
  out.push(
    {
      name: 'fresh v1',
      payload: body,
      headers: headers(id, t, official(secret, id, t, body)),
      keys: [secret],
      expect: 'ok',
    },
    {
      name: 'two v1 in a rotation, the receiver knows the old secret',
      payload: body,
      headers: headers(id, t, `${official(secret, id, t, body)} ${official(oldSecret, id, t, body)}`),
      keys: [oldSecret],
      expect: 'ok',
    },
    {
      name: 'several secrets on the receiver side',
      payload: body,
      headers: headers(id, t, official(secret, id, t, body)),
      keys: [oldSecret, secret],
      expect: 'ok',
    },
    {
      name: 'six minutes old',
      payload: body,
      headers: headers(id, t - 360, official(secret, id, t - 360, body)),
      keys: [secret],
      expect: 'timestamp_outside_tolerance',
    },
    {
      name: 'six minutes ahead',
      payload: body,
      headers: headers(id, t + 360, official(secret, id, t + 360, body)),
      keys: [secret],
      expect: 'timestamp_outside_tolerance',
    },
    {
      name: 're-serialised JSON',
      payload: JSON.stringify(JSON.parse(body), null, 1),
      headers: headers(id, t, official(secret, id, t, body)),
      keys: [secret],
      expect: 'no_matching_signature',
    },
    {
      name: 'another webhook-id',
      payload: body,
      headers: headers('dlv_other', t, official(secret, id, t, body)),
      keys: [secret],
      expect: 'no_matching_signature',
    },
    {
      name: 'no webhook-id',
      payload: body,
      headers: { ...headers(id, t, official(secret, id, t, body)), 'webhook-id': '' },
      keys: [secret],
      expect: 'malformed_header',
    },
    { name: 'no signature', payload: body, headers: headers(id, t, ''), keys: [secret], expect: 'malformed_header' },
    {
      name: 'only a v1a for an HMAC secret',
      payload: body,
      headers: headers(id, t, ed25519(id, t, body)),
      keys: [secret],
      expect: 'no_matching_signature',
    },
    {
      name: 'fresh v1a',
      payload: body,
      headers: headers(id, t, ed25519(id, t, body)),
      keys: [publicKey],
      expect: 'ok',
      v1a: true,
    },
    {
      name: 'v1 and v1a, the receiver holds the public key',
      payload: body,
      headers: headers(id, t, `${official(secret, id, t, body)} ${ed25519(id, t, body)}`),
      keys: [publicKey],
      expect: 'ok',
      v1a: true,
    },
    {
      name: 'v1a of a changed body',
      payload: body.replace('İstanbul', 'Istanbul'),
      headers: headers(id, t, ed25519(id, t, body)),
      keys: [publicKey],
      expect: 'no_matching_signature',
      v1a: true,
    },
  );
  return out;
}

const check = (run: (casesFile: string) => string, options: { v1a: boolean }) =>
  checkAnswers(
    dir,
    cases().filter((c) => options.v1a || !c.v1a),
    ({ payload, headers: h, keys }) => ({ payload, headers: h, keys }),
    run,
  );

test('the documented Python Standard Webhooks verifier: vectors, rotation, both-way tolerance (v1)', () => {
  const script = join(dir, 'standard.py');
  writeFileSync(
    script,
    `${verifier('python')}
import sys
results = []
for c in json.load(open(sys.argv[1], encoding="utf-8")):
    try:
        verify_standard_webhook(c["payload"].encode("utf-8"), c["headers"], c["keys"])
        results.append("ok")
    except ValueError as e:
        results.append(str(e))
print(json.dumps(results))
`,
  );
  check((file) => runVerifier(requireTool(tools.python), [script, file]), { v1a: false });
});

test('the documented Go Standard Webhooks verifier: vectors, rotation, both-way tolerance, v1 and v1a', () => {
  const verify = join(dir, 'verify_standard.go');
  const program = join(dir, 'standard_cases.go');
  writeFileSync(verify, verifier('go'));
  writeFileSync(
    program,
    `package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"
)

func main() {
	data, _ := os.ReadFile(os.Args[1])
	var cases []struct {
		Payload string            \`json:"payload"\`
		Headers map[string]string \`json:"headers"\`
		Keys    []string          \`json:"keys"\`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		panic(err)
	}
	results := []string{}
	for _, c := range cases {
		header := http.Header{}
		for k, v := range c.Headers {
			header.Set(k, v)
		}
		if err := VerifyStandard([]byte(c.Payload), header, c.Keys, 300*time.Second); err != nil {
			results = append(results, err.Error())
		} else {
			results = append(results, "ok")
		}
	}
	out, _ := json.Marshal(results)
	fmt.Println(string(out))
}
`,
  );
  check((file) => runVerifier(requireTool(tools.go), ['run', verify, program, file]), { v1a: true });
});

test('the documented PHP Standard Webhooks verifier: vectors, rotation, both-way tolerance, v1 and v1a', () => {
  const script = join(dir, 'standard.php');
  writeFileSync(join(dir, 'verify_standard_webhook.php'), verifier('php'));
  writeFileSync(
    script,
    `<?php
require __DIR__ . '/verify_standard_webhook.php';
$results = [];
foreach (json_decode(file_get_contents($argv[1]), true) as $c) {
    try {
        verify_standard_webhook($c['payload'], $c['headers'], $c['keys']);
        $results[] = 'ok';
    } catch (RuntimeException $e) {
        $results[] = $e->getMessage();
    }
}
echo json_encode($results);
`,
  );
  check((file) => runVerifier(requireTool(tools.php), [script, file]), { v1a: true });
});
