// The receiver pages (docs/receivers.md, docs/receivers/), run: its Node receiver (on the sandbay-receiver kit) answers
// a refusal with a Sandbay-Echo the check reads (readme-receivers.test.ts runs it through the whole battery); its echo
// recipes in Python, Go and PHP write exactly what the kit's err.echo does.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { echoValue } from '../../../src/receiver/echo.ts';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { receiverBlocks } from '../../helpers/docs.ts';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { receiverEnv, useReceiverProcesses } from '../../helpers/receiver-process.ts';
import { failedCases, runCheck } from './helpers.ts';

const engine = useEngine();
const root = packageRoot();
// The block of a language that defines the echo recipe.
const recipe = (language: string) => receiverBlocks(language).find((b) => /sandbay_echo|SandbayEcho/.test(b))!;
const dir = mkdtempSync(join(tmpdir(), 'sandbay-docs-receivers-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const secret = 'whsec_docsReceiverSecret0123456789ab';
const env = receiverEnv(secret);
const start = useReceiverProcesses();

test("the docs' Node receiver on sandbay-receiver, checked with another secret: its Sandbay-Echo names the cause", async () => {
  execFileSync(process.execPath, [join(root, 'scripts', 'build-receiver.mjs')], { cwd: root, stdio: 'pipe' });
  const folder = join(dir, 'node');
  mkdirSync(join(folder, 'node_modules'), { recursive: true });
  symlinkSync(join(root, 'packages', 'receiver'), join(folder, 'node_modules', 'sandbay-receiver'), 'dir');
  symlinkSync(join(root, 'node_modules', 'koa'), join(folder, 'node_modules', 'koa'), 'dir');
  writeFileSync(join(folder, 'package.json'), '{ "type": "module" }');
  writeFileSync(join(folder, 'receiver.mjs'), receiverBlocks('js')[0]);
  const { url } = await start(folder, () => [process.execPath, ['receiver.mjs']], env);
  const sb = await createSandbox(engine.url);
  const wrong = await runCheck(sb, { url, secret: 'whsec_notTheReceiversSecret000000000' });
  assert.deepEqual(failedCases(wrong), ['valid']);
  assert.match(wrong.report.rootCause.cause, /its Sandbay-Echo shows it used another secret/);
});

test("the docs' echo recipes in Python, Go and PHP write what the kit's err.echo does", () => {
  const cases = [
    { payload: '{"topic":"order.placed","data":{"city":"Kadıköy"}}', t: '1800000000' },
    { payload: `{"padding":"${'x'.repeat(5000)}"}`, t: '1800000001' },
  ];
  for (const { payload, t } of cases) {
    const expected = echoValue(payload, Number(t), secret);
    const python = recipe('python');
    const py = execFileSync(
      'python3',
      [
        '-c',
        `${python}\nimport sys\nsys.stdout.write(sandbay_echo(sys.stdin.buffer.read(), ${JSON.stringify(t)}, ${JSON.stringify(secret)}))`,
      ],
      { input: payload },
    );
    assert.equal(py.toString(), expected, 'python');
    const php = recipe('php');
    const phpOut = execFileSync(
      'php',
      [
        '-r',
        `${php.replace(/^<\?php\n/, '')}\necho sandbay_echo(file_get_contents('php://stdin'), '${t}', '${secret}');`,
      ],
      { input: payload },
    );
    assert.equal(phpOut.toString(), expected, 'php');
    const folder = join(dir, `go-${t}`);
    mkdirSync(folder);
    const go = recipe('go');
    writeFileSync(
      join(folder, 'main.go'),
      `package main\n\nimport (\n\t"crypto/hmac"\n\t"crypto/sha256"\n\t"encoding/base64"\n\t"fmt"\n\t"io"\n\t"os"\n)\n\n${go}\nfunc main() {\n\tpayload, _ := io.ReadAll(os.Stdin)\n\tfmt.Print(SandbayEcho(payload, "${t}", "${secret}"))\n}\n`,
    );
    assert.equal(
      execFileSync('go', ['run', 'main.go'], { cwd: folder, input: payload, env }).toString(),
      expected,
      'go',
    );
  }
});
