/**
 * The server's zod schemas and the client's generated types describe the same shapes.
 * Checked by the compiler (the `typecheck` task runs before the tests).
 */
import type { components } from '@identity-service/client';
import type { z } from '@hono/zod-openapi';
import type * as common from '@identity-service/server/src/http/schemas/common.js';
import type * as texts from '@identity-service/server/src/http/schemas/texts.js';
import { expectTypeOf, it } from 'vitest';

type S = components['schemas'];

it('shared shapes match the generated types', () => {
  expectTypeOf<z.infer<typeof common.Details>>().toEqualTypeOf<S['Details']>();
  expectTypeOf<z.infer<typeof common.ErrorBody>>().toEqualTypeOf<S['ErrorBody']>();
  expectTypeOf<z.infer<typeof texts.SetMessageTextRequest>>().toEqualTypeOf<S['SetMessageTextRequest']>();
  expectTypeOf<z.infer<typeof texts.MessageCustomText>>().toEqualTypeOf<S['MessageCustomText']>();
});
