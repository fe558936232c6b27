import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { readGcsText, writeGcsObject } from '../../src/storage/gcs.js';
import { type GcsEmulator, startGcsEmulator } from '../support/gcs-emulator.js';

describe('Google Cloud Storage objects (through the emulator)', () => {
  let gcs: GcsEmulator;
  beforeAll(async () => {
    gcs = await startGcsEmulator();
  });
  afterAll(() => gcs?.stop());

  const loc = (path: string, bucket = 'transfer-bucket') => ({ bucket, path, serviceaccountJson: gcs.serviceAccountBase64 });

  it('round-trips an object written from a stream', async () => {
    async function* parts() {
      yield '{"orgs":[';
      for (let i = 0; i < 1000; i++) yield `${i ? ',' : ''}{"orgId":"${i}"}`;
      yield ']}';
    }
    const { bytes } = await writeGcsObject(loc('exports/a.json'), parts(), { endpoint: gcs.endpoint });
    const text = await readGcsText(loc('exports/a.json'), { endpoint: gcs.endpoint });
    expect(Buffer.byteLength(text)).toBe(bytes);
    expect(JSON.parse(text).orgs).toHaveLength(1000);
  });

  it('a missing object → 404 quickly', async () => {
    const started = Date.now();
    const error = await readGcsText(loc('nope.json'), { endpoint: gcs.endpoint }).catch((e) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.code).toBe(5);
    expect(error.message).toContain('gs://transfer-bucket/nope.json');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('undecodable credentials → 400 before any request', async () => {
    for (const bad of ['%%%not base64', Buffer.from('not json').toString('base64'), Buffer.from('[1]').toString('base64')]) {
      const error = await readGcsText({ bucket: 'b', path: 'p', serviceaccountJson: bad }, { endpoint: 'http://127.0.0.1:9' }).catch((e) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect(error.code).toBe(3);
    }
  });

  it('an object over the size limit → 413-class error', async () => {
    await writeGcsObject(loc('big.json'), ['x'.repeat(2048)], { endpoint: gcs.endpoint });
    const error = await readGcsText(loc('big.json'), { endpoint: gcs.endpoint, maxBytes: 1024 }).catch((e) => e);
    expect(error.code).toBe(8);
  });

  it('an unreachable endpoint fails within the timeout instead of hanging', async () => {
    // The client prefers STORAGE_EMULATOR_HOST over an explicit endpoint: take it away here.
    const saved = process.env.STORAGE_EMULATOR_HOST;
    delete process.env.STORAGE_EMULATOR_HOST;
    const started = Date.now();
    const error = await readGcsText(loc('x.json'), { endpoint: 'http://127.0.0.1:9', requestTimeoutMs: 2000 })
      .catch((e) => e)
      .finally(() => (process.env.STORAGE_EMULATOR_HOST = saved));
    expect(error).toBeInstanceOf(DomainError);
    expect(error.code).toBe(14);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
