/**
 * Two generators read the one spec: openapi-typescript writes the client's types, @hey-api's zod
 * plugin the server's validators (scripts/generate-schemas.ts). Every component schema must come
 * out as the same type from both, or a client could send what the server refuses (or the reverse)
 * with both "generated from the spec". Checked by the compiler (the `typecheck` task runs before
 * the tests); the test below also fails at run time when a component has no server schema.
 */
import type { components } from '@identity-service/client';
import * as generated from '@identity-service/server/src/http/generated/schemas.gen.js';
import { expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { spec } from './support/spec.js';

type ClientSchemas = components['schemas'];
type Generated = typeof generated;

/** 'true' when A and B are the same type (the usual mutual-assignability-of-functions trick). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * The server's schema of a component: its `…Writable` variant when the spec marks fields
 * `writeOnly` (hey-api splits those; requests are validated with the writable one, which holds
 * every field the client's type has).
 */
type ServerSchema<K extends string> = `z${K}Writable` extends keyof Generated ? Generated[`z${K}Writable`] : `z${K}` extends keyof Generated ? Generated[`z${K}`] : never;

/** Each assignable to the other: for open objects, which openapi-typescript writes as an intersection with an index signature. */
type Interchangeable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/**
 * Components with open objects — `additionalProperties: true`, or typed as in ExportDataResponse's
 * removed resources (`kind` and string ids) — which the two generators write as different but
 * interchangeable types: their fields are still compared, through assignability.
 */
type OpenObjects = 'DataOrgs' | 'ExportDataResponse' | 'ImportDataRequest' | 'OIDCDiscovery';
type Agree<K extends string, A, B> = Same<A, B> extends true ? true : K extends OpenObjects ? Interchangeable<A, B> : false;

/** The components whose server schema's output differs from the client's type. */
type Differing = {
  [K in keyof ClientSchemas & string]: ServerSchema<K> extends z.ZodType ? (Agree<K, z.output<ServerSchema<K>>, ClientSchemas[K]> extends true ? never : K) : K;
}[keyof ClientSchemas & string];

it('every component schema is the same type for the client and the server', () => {
  expectTypeOf<Differing>().toEqualTypeOf<never>();
  const missing = Object.keys(spec.components.schemas).filter((name) => !(`z${name}` in generated));
  expect(missing).toEqual([]);
});
