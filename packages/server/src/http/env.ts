import type { RequestContext } from '../domain/context.js';
import type { Logger } from '../log.js';

/** What middleware puts on the Hono context for the handlers after it. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    /** Set by the auth middleware on /admin/v1 and /management/v1. */
    ctx: RequestContext;
  };
}
