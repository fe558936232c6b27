/**
 * The pages a person reaches without an application: `/` and `/ui/login` (ui/start-pages.ts), in the
 * instance's look; where the instance's login policy has a `defaultRedirectUri`, they lead there (as
 * ZITADEL's login does when no application is waiting).
 */
import type { Hono } from 'hono';
import { startPageContext } from '../../domain/login/page-look.js';
import type { Store } from '../../store/store.js';
import { landingPage, signInStartPage } from '../../ui/start-pages.js';
import type { AppEnv } from '../env.js';

export function registerStartPageRoutes(app: Hono<AppEnv>, store: Store, instanceId: string) {
  app.get('/', async (c) => c.html(landingPage(await startPageContext(store.read, instanceId))));
  app.get('/ui/login', async (c) => c.html(signInStartPage(await startPageContext(store.read, instanceId))));
}
