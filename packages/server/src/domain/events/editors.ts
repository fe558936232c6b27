/**
 * Who wrote an event, as ZITADEL's trail shows it: the editor's id with its display name (a
 * person's profile, a service user's name) and preferred login name. A page's editors are read
 * together: one query for the users, and the login-name rules once per organisation they belong to,
 * never once per event. An editor that is no user (`SYSTEM`, the first start) or no longer one (a
 * removed user) is shown by its id alone, as ZITADEL does.
 */
import type { Repositories } from '../../store/store.js';
import { displayNameOf } from '../projects/members.js';
import { loginNameReader } from '../users/login-names.js';

export interface Editor {
  userId: string;
  displayName?: string;
  preferredLoginName?: string;
}

/** The editors of these events, by user id. */
export async function editorsOf(read: Repositories, instanceId: string, events: readonly { creator: string }[]): Promise<Map<string, Editor>> {
  const ids = [...new Set(events.map((e) => e.creator))];
  const users = await read.users.byIds(ids);
  const names = loginNameReader(read, instanceId);
  const found = await Promise.all(
    users.map(
      async (user): Promise<Editor> => ({
        userId: user.id,
        displayName: displayNameOf(user.data as Record<string, unknown>),
        preferredLoginName: (await names.of(user)).preferredLoginName,
      }),
    ),
  );
  const editors = new Map(found.map((editor) => [editor.userId, editor]));
  for (const id of ids) if (!editors.has(id)) editors.set(id, { userId: id });
  return editors;
}
