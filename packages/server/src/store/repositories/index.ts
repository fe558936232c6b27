/**
 * All repositories bound to one connection or transaction. The domain receives this object
 * and never sees drizzle or SQL. One file per table group, named after it.
 */
import type { Tables } from '../schema.js';
import type { Db } from '../store.js';
import { eventRepository } from './events.js';
import { instanceRepository } from './instance.js';
import { memberRepository } from './members.js';
import { orgRepository } from './orgs.js';
import { messageTextRepository } from './texts.js';
import { tokenRepository } from './tokens.js';
import { userRepository } from './users.js';

export function createRepositories(db: Db, t: Tables) {
  return {
    events: eventRepository(db, t),
    instance: instanceRepository(db, t),
    orgs: orgRepository(db, t),
    users: userRepository(db, t),
    tokens: tokenRepository(db, t),
    members: memberRepository(db, t),
    messageTexts: messageTextRepository(db, t),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
