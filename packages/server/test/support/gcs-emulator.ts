/**
 * A Cloud Storage emulator on a free loopback port, as a child process (platform notes §3),
 * plus a dummy service account for it. The storage client is given the endpoint explicitly;
 * STORAGE_EMULATOR_HOST is set as well for code that only reads the environment.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

export interface GcsEmulator {
  endpoint: string;
  /** A base64-encoded service-account JSON the client accepts (the emulator checks nothing). */
  serviceAccountBase64: string;
  stop(): Promise<void>;
}

const script = join(dirname(fileURLToPath(import.meta.url)), 'fb-storage-emulator.cjs');

export function dummyServiceAccountBase64(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const json = {
    type: 'service_account',
    project_id: 'demo-test',
    private_key_id: 'test',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'transfer@demo-test.iam.gserviceaccount.com',
    client_id: '1',
    token_uri: 'https://oauth2.googleapis.com/token',
  };
  return Buffer.from(JSON.stringify(json)).toString('base64');
}

export async function startGcsEmulator(): Promise<GcsEmulator> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'gcs-emulator-'));
  const child: ChildProcess = spawn(process.execPath, [script], {
    // Blobs go to $TMPDIR/firebase/storage: one folder per emulator. No metadata-server probing.
    env: { ...process.env, PORT: String(port), TMPDIR: dataDir, METADATA_SERVER_DETECTION: 'none' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`GCS emulator did not start in 20 s: ${stderr}`)), 20_000);
    child.stdout!.on('data', (d) => {
      if (String(d).includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`GCS emulator exited with ${code}: ${stderr}`));
    });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  process.env.STORAGE_EMULATOR_HOST = endpoint;
  return {
    endpoint,
    serviceAccountBase64: dummyServiceAccountBase64(),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      if (process.env.STORAGE_EMULATOR_HOST === endpoint) delete process.env.STORAGE_EMULATOR_HOST;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
