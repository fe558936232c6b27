/**
 * A version-1 document (`dataOrgsv1`, `dataOrgsv1Gcs`) is read whole, not as a stream, so it keeps a
 * limit of its own (MAX_V1_DOCUMENT_BYTES, 64 MiB) under the inline import's larger one (issue 30):
 * past it, inline or from Cloud Storage, the import is refused with ZITADEL's error body, naming
 * `dataOrgs` as the way to import more, and nothing is written.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_V1_DOCUMENT_BYTES } from '../../src/domain/transfer/import/import-data.js';
import { writeGcsObject } from '../../src/storage/gcs.js';
import { type GcsEmulator, startGcsEmulator } from '../support/gcs-emulator.js';
import { createTestInstance, describeEachStore, type TestInstance } from '../support/instance.js';

/** A v1 document of one small organisation, padded with JSON whitespace to `bytes`. */
function paddedV1Document(orgId: string, bytes: number): string {
  const doc = JSON.stringify({ orgs: [{ orgId, org: { name: `V1 ${orgId}` } }] });
  return doc.slice(0, -1) + ' '.repeat(bytes - doc.length) + '}';
}

describeEachStore('a version-1 document over its own limit', (dialect) => {
  let gcs: GcsEmulator;
  let t: TestInstance;
  beforeAll(async () => {
    gcs = await startGcsEmulator();
    t = await createTestInstance(dialect, { gcsEndpoint: gcs.endpoint });
  });
  afterAll(async () => {
    await t?.close();
    await gcs?.stop();
  });

  const expectRefused = async (res: Response, orgId: string) => {
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(413);
    expect(body).toMatchObject({ code: 8, message: expect.stringContaining('dataOrgs'), details: [expect.objectContaining({ id: 'IMPORT-v1b1g' })] });
    expect(await t.store.read.orgs.get(orgId)).toBeUndefined();
  };

  it('inline: a small v1 document imports; a request one byte past the limit is refused, nothing written', async () => {
    const small = await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgsv1: JSON.parse(paddedV1Document('v1-small', 1024)) } });
    expect(small.status).toBe(200);
    expect(await t.store.read.orgs.get('v1-small')).toBeDefined();
    // The request, not just the document, is measured inline: padding between the request's tokens.
    const doc = JSON.stringify({ orgs: [{ orgId: 'v1-big', org: { name: 'V1 big' } }] });
    const request = `{"timeout":"1m","dataOrgsv1":${doc}`;
    const body = request + ' '.repeat(MAX_V1_DOCUMENT_BYTES + 1 - request.length - 1) + '}';
    await expectRefused(await t.call('POST', '/admin/v1/import', { body }), 'v1-big');
  });

  it('from Cloud Storage: an object past the limit is refused, nothing written', async () => {
    const location = { bucket: 'migrations', path: `${dialect}/v1-big.json`, serviceaccountJson: gcs.serviceAccountBase64 };
    await writeGcsObject(location, [paddedV1Document('v1-gcs', MAX_V1_DOCUMENT_BYTES + 1)], { endpoint: gcs.endpoint });
    await expectRefused(await t.call('POST', '/admin/v1/import', { body: { timeout: '1m', dataOrgsv1Gcs: location } }), 'v1-gcs');
  });
});
