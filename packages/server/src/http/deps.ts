import type { MiddlewareHandler } from 'hono';
import type { MailSettings } from '../domain/texts/preview.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Store } from '../store/store.js';
import type { AppEnv } from './env.js';

/** What every route registrar receives. */
export interface RouteDeps {
  store: Store;
  /** Authenticates the caller; listed first in each protected route's middleware. */
  auth: MiddlewareHandler<AppEnv>;
  /** Seals and opens secrets at rest with the operator's key (secrets/secret-box.ts). */
  secrets: SecretBox;
  /** The base of links in mails, the mail-drop folder and the test sends' budget (previews and test sends of texts). */
  mail: MailSettings;
}
