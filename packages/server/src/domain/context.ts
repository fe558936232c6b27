import { permissionDenied } from './errors.js';
import type { Permissions } from './permissions.js';

/** Who is calling, resolved from the token by the auth layer. */
export interface Caller {
  userId: string;
  /** The organisation the caller's user belongs to. */
  orgId: string;
}

/** Everything a domain command or query needs to know about the request. */
export interface RequestContext {
  instanceId: string;
  caller: Caller;
  /** The organisation acted on: the `x-service-orgid` header, else the caller's organisation. */
  orgId: string;
  permissions: Permissions;
}

/** Throws 403 unless the caller holds `permission` in the context organisation or instance. */
export function requirePermission(ctx: RequestContext, permission: string): void {
  if (!ctx.permissions.hasAny(permission)) {
    throw permissionDenied('AUTH-5mWD2', `No matching permissions found (${permission})`);
  }
}
