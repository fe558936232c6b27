import type { RequestContext } from '../domain/context.js';
import type { ImportInput } from '../domain/transfer/import/import-data.js';
import type { Logger } from '../log.js';

/** What middleware puts on the Hono context for the handlers after it. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    /** Set by the auth middleware on /admin/v1 and /management/v1. */
    ctx: RequestContext;
    /** ImportData's body, spooled to a private file before the handler runs (routes/admin-transfer.ts). */
    importRequest: ImportInput;
    /** The handler's answer reads from the import's spool and removes it when sent (routes/admin-transfer.ts). */
    importSpoolKept?: boolean;
  };
}
