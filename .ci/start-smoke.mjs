#!/usr/bin/env node
/**
 * The README's `npm start`, checked from outside as a user would: started in the checkout it runs
 * in (a fresh data folder, a free port), it answers /readyz, the quick start's REST call with the
 * admin token the first start wrote, and the same operation over Connect; SIGTERM to npm stops it.
 * Prints the Node that served (Linux: /proc/<pid>/exe of the pid the server logs). Exit 0 on success, 1 with the server's output otherwise.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dataDir = mkdtempSync(join(tmpdir(), 'identity-smoke-'));
const npm = spawn('npm', ['start'], {
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
const exited = new Promise((resolve) => npm.on('exit', (code, signal) => resolve(code ?? signal)));

function fail(message) {
  console.error(`smoke: ${message}\n--- npm start said:\n${output}`);
  npm.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
}

let listening = false;
const port = await new Promise((resolve) => {
  const timer = setTimeout(() => fail('no "listening" within 180 s'), 180_000);
  const onData = (chunk) => {
    output += chunk;
    const match = /"msg":"listening".*?"port":(\d+)/.exec(output);
    if (match) {
      clearTimeout(timer);
      listening = true;
      resolve(Number(match[1]));
    }
  };
  npm.stdout.on('data', onData);
  npm.stderr.on('data', onData);
  void exited.then((code) => listening || fail(`npm start exited (${code}) before listening`));
});
const base = `http://127.0.0.1:${port}`;

async function expectStatus(what, response, status) {
  const body = await response.text();
  if (response.status !== status) fail(`${what}: ${response.status} ${body}`);
  return body ? JSON.parse(body) : undefined;
}

await expectStatus('GET /readyz', await fetch(`${base}/readyz`), 200);
const token = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const text = { title: 'Verify your email', text: 'Your code: {{.Code}}', buttonText: 'Verify' };
await expectStatus('PUT verifyemail text', await fetch(`${base}/admin/v1/text/message/verifyemail/en`, { method: 'PUT', headers: auth, body: JSON.stringify(text) }), 200);
const read = await expectStatus('GET verifyemail text', await fetch(`${base}/admin/v1/text/message/verifyemail/en`, { headers: auth }), 200);
if (read.customText?.title !== text.title) fail(`GET verifyemail text answered ${JSON.stringify(read)}`);
const connect = await expectStatus(
  'Connect GetCustomVerifyEmailMessageText',
  await fetch(`${base}/zitadel.admin.v1.AdminService/GetCustomVerifyEmailMessageText`, { method: 'POST', headers: auth, body: JSON.stringify({ language: 'en' }) }),
  200,
);
if (connect.customText?.title !== text.title) fail(`Connect answered ${JSON.stringify(connect)}`);

const pid = /"msg":"listening".*?"pid":(\d+)/.exec(output)?.[1];
let node = 'its Node';
try {
  node = readlinkSync(`/proc/${pid}/exe`);
} catch {
  // not Linux: the Node stays unnamed
}
npm.kill('SIGTERM');
const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 15_000))]);
if (code === 'timeout') fail('npm start did not stop within 15 s of SIGTERM');
rmSync(dataDir, { recursive: true, force: true });
console.log(`smoke: npm start served on ${node}: /readyz, REST and Connect answered on port ${port}; stopped on SIGTERM (exit ${code})`);
