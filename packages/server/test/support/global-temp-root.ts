/**
 * One temporary folder per test run, under which everything the run makes in os.tmpdir() goes,
 * removed whole when the run ends. It sets TMPDIR before the other global set-ups and the test
 * workers start, so the tests' folders (tempDir, mkdtemp), the service's own (import spools,
 * mail-drop folders), those of the processes the tests start (which inherit the environment), the
 * embedded PostgreSQL's data and Chromium's profiles all land in it. That includes the import
 * spools a test leaves when it calls ImportData in process (`app.request`) and reads only the
 * answer's status: the spool goes when the answer's body has been read to its end (over HTTP the
 * server reads it whole or cancels it when the client goes, so the service itself leaves none).
 *
 * Why a root as well as each file's clean-up (remove-temp-dirs.ts): not every folder is made through
 * tempDir, and a run that is stopped skips the clean-ups. Listed first, so TMPDIR is set before
 * PostgreSQL starts; the root goes after PostgreSQL has stopped (vitest runs teardowns in reverse).
 *
 * What a person looks at afterwards (Chromium's screenshots) goes to TEST_OUTPUT_DIR, outside it.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedAcrossProjects } from './shared-setup.js';

export default async function setup() {
  const { release } = await sharedAcrossProjects('temp-root', async () => {
    const systemTmp = tmpdir();
    const root = mkdtempSync(join(systemTmp, 'identity-tests-'));
    // initdb runs as the user `postgres` when we are root (global-postgres.ts): it must pass through.
    chmodSync(root, 0o755);
    const previous = { TMPDIR: process.env.TMPDIR, TEST_OUTPUT_DIR: process.env.TEST_OUTPUT_DIR };
    process.env.TEST_OUTPUT_DIR ??= join(systemTmp, 'identity-service-test-output');
    process.env.TMPDIR = root;
    const stop = () => {
      for (const [name, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(root, { recursive: true, force: true });
    };
    return { value: root, stop };
  });
  return release;
}
