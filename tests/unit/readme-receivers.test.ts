// The receiver pages' Python, Go and PHP receivers, run verbatim (interpreters from .ci/run) against the
// reference vectors and against fresh signatures made here with node:crypto.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { checkAnswers, runVerifier } from '../helpers/documented-verifiers.ts';
import { requireTool, tools } from '../helpers/tools.ts';
import { receiverBlocks } from '../helpers/docs.ts';
import { signatureVectors } from '../helpers/vectors.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbay-readme-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The verifier: the first block of the language (the second is the receiver around it, run by the
 * receiver-check test; a third, the debug echo's recipe, by docs-receivers.test.ts).
 */
function codeBlock(language: string): string {
  const blocks = receiverBlocks(language);
  assert.ok(blocks.length >= 2, `a verifier and a receiver in ${language} in docs/receivers.md`);
  return blocks[0];
}

interface Case {
  name: string;
  payload: string;
  header: string;
  secrets: string[];
  expect: string;
}

const sign = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
const now = () => Math.floor(Date.now() / 1000);

function cases(): Case[] {
  const out: Case[] = [];
  // The vectors' timestamps are long past: a receiver whose HMAC agrees with the reference gets
  // past the signature check and stops at the clock, one that disagrees says no_matching_signature.
  for (const [i, c] of signatureVectors.cases.entries()) {
    out.push({
      name: `vector ${i}`,
      payload: c.body,
      header: c.header,
      secrets: [c.secret],
      expect: 'timestamp_outside_tolerance',
    });
    out.push({
      name: `vector ${i}, wrong secret`,
      payload: c.body,
      header: c.header,
      secrets: ['whsec_wrong'],
      expect: 'no_matching_signature',
    });
  }
  const rotation = signatureVectors.rotation;
  for (const secret of rotation.secrets) {
    out.push({
      name: `rotation vector with ${secret} alone`,
      payload: rotation.body,
      header: rotation.header,
      secrets: [secret],
      expect: 'timestamp_outside_tolerance',
    });
  }

  const body = signatureVectors.cases.find((c) => /[^\x00-\x7f]/.test(c.body))?.body ?? signatureVectors.cases[0].body;
  const t = now();
  const header = (at: number, ...secrets: string[]) =>
    [`t=${at}`, ...secrets.map((s) => `v1=${sign(s, at, body)}`)].join(',');
  out.push(
    { name: 'fresh signature', payload: body, header: header(t, 'whsec_a'), secrets: ['whsec_a'], expect: 'ok' },
    {
      name: 'two v1 during a rotation, the receiver knows the old secret',
      payload: body,
      header: header(t, 'whsec_new', 'whsec_old'),
      secrets: ['whsec_old'],
      expect: 'ok',
    },
    {
      name: 'several secrets on the receiver side',
      payload: body,
      header: header(t, 'whsec_b'),
      secrets: ['whsec_a', 'whsec_b'],
      expect: 'ok',
    },
    {
      name: 'six minutes old',
      payload: body,
      header: header(t - 360, 'whsec_a'),
      secrets: ['whsec_a'],
      expect: 'timestamp_outside_tolerance',
    },
    {
      name: 'six minutes ahead',
      payload: body,
      header: header(t + 360, 'whsec_a'),
      secrets: ['whsec_a'],
      expect: 'timestamp_outside_tolerance',
    },
    {
      name: 're-serialised JSON',
      payload: JSON.stringify(JSON.parse(body), null, 1),
      header: header(t, 'whsec_a'),
      secrets: ['whsec_a'],
      expect: 'no_matching_signature',
    },
    { name: 'no v1', payload: body, header: `t=${t}`, secrets: ['whsec_a'], expect: 'malformed_header' },
    { name: 'no header', payload: body, header: '', secrets: ['whsec_a'], expect: 'malformed_header' },
  );
  return out;
}

const check = (run: (casesFile: string) => string) =>
  checkAnswers(dir, cases(), ({ payload, header, secrets }) => ({ payload, header, secrets }), run);

test('the documented Python receiver verifies the vectors, rotation and both-way tolerance', () => {
  const script = join(dir, 'receiver.py');
  writeFileSync(
    script,
    `${codeBlock('python')}
import sys
results = []
for c in json.load(open(sys.argv[1], encoding="utf-8")):
    try:
        verify_webhook(c["payload"].encode("utf-8"), c["header"], c["secrets"])
        results.append("ok")
    except ValueError as e:
        results.append(str(e))
print(json.dumps(results))
`,
  );
  check((file) => runVerifier(requireTool(tools.python), [script, file]));
});

test('the documented Go receiver verifies the vectors, rotation and both-way tolerance', () => {
  const verify = join(dir, 'verify.go');
  const program = join(dir, 'vectors.go');
  writeFileSync(verify, codeBlock('go'));
  writeFileSync(
    program,
    `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

func main() {
	data, _ := os.ReadFile(os.Args[1])
	var cases []struct {
		Payload string   \`json:"payload"\`
		Header  string   \`json:"header"\`
		Secrets []string \`json:"secrets"\`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		panic(err)
	}
	results := []string{}
	for _, c := range cases {
		if err := Verify([]byte(c.Payload), c.Header, c.Secrets, 300*time.Second); err != nil {
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
  check((file) => runVerifier(requireTool(tools.go), ['run', verify, program, file]));
});

test('the documented PHP receiver verifies the vectors, rotation and both-way tolerance', () => {
  const script = join(dir, 'vectors.php');
  writeFileSync(join(dir, 'verify_webhook.php'), codeBlock('php'));
  writeFileSync(
    script,
    `<?php
require __DIR__ . '/verify_webhook.php';
$results = [];
foreach (json_decode(file_get_contents($argv[1]), true) as $c) {
    try {
        verify_webhook($c['payload'], $c['header'], $c['secrets']);
        $results[] = 'ok';
    } catch (RuntimeException $e) {
        $results[] = $e->getMessage();
    }
}
echo json_encode($results);
`,
  );
  check((file) => runVerifier(requireTool(tools.php), [script, file]));
});
