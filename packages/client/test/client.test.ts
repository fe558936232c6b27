import { describe, expect, expectTypeOf, it } from 'vitest';
import { createIdentityClient, type ErrorBody, IdentityApiError, unwrap } from '../src/index.js';

// A tiny real HTTP handler standing in for the service: the client's own behaviour is under test
// here (headers, error surfacing); the contract tests drive the real server through this client.
function fakeServer(handler: (req: Request) => Response | Promise<Response>) {
  return async (req: Request) => handler(req);
}

describe('createIdentityClient', () => {
  it('sends the token and the organisation header', async () => {
    let seen: Request | undefined;
    const api = createIdentityClient({
      baseUrl: 'http://svc.test/',
      token: 'tok',
      orgId: '42',
      fetch: fakeServer((req) => {
        seen = req;
        return Response.json({ languages: ['en'] });
      }),
    });
    const { data } = await api.GET('/admin/v1/languages');
    expect(data?.languages).toEqual(['en']);
    expect(seen?.url).toBe('http://svc.test/admin/v1/languages');
    expect(seen?.headers.get('authorization')).toBe('Bearer tok');
    expect(seen?.headers.get('x-service-orgid')).toBe('42');
  });

  it('surfaces a failed call as a typed error holding the error body', async () => {
    const body: ErrorBody = {
      code: 7,
      message: 'No matching permissions found (AUTH-5mWD2)',
      details: [{ '@type': 'type.googleapis.com/zitadel.v1.ErrorDetail', id: 'AUTH-5mWD2', message: 'No matching permissions found' }],
    };
    const api = createIdentityClient({ baseUrl: 'http://svc.test', fetch: fakeServer(() => Response.json(body, { status: 403 })) });
    const result = await api.PUT('/admin/v1/text/message/verifyemail/{language}', { params: { path: { language: 'en' } }, body: { title: 'x' } });
    expectTypeOf(result.error).toEqualTypeOf<ErrorBody | undefined>();
    expect(result.error?.code).toBe(7);
    try {
      unwrap(result);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IdentityApiError);
      expect((error as IdentityApiError).status).toBe(403);
      expect((error as IdentityApiError).id).toBe('AUTH-5mWD2');
    }
  });
});
