/**
 * Users, their metadata and their links to identity providers (import/users.ts): the lists that
 * grow with the organisation, each read and written a page at a time (section.ts, pagedList).
 */

import type { Repositories } from '../../../store/store.js';
import { toLinkViews } from '../../federation/links.js';
import { openOtpSecret } from '../../users/otp-secret.js';
import { HISTORY_PAGE, withHistories } from '../history.js';
import type { ExportRequest } from '../request.js';
import { compact } from './compact.js';
import { type OrgExport, PAGE, pagedList } from './section.js';

type UserRow = Awaited<ReturnType<Repositories['transfer']['usersPage']>>[number];
type MetadataRow = Awaited<ReturnType<Repositories['userMetadata']['pageByOrg']>>[number];
type LinkRow = Awaited<ReturnType<Repositories['idpLinks']['pageByOrg']>>[number];

/** humanUsers, then machineUsers; with `withOtp` each page's TOTP secrets, opened for the document. */
export async function* users(o: OrgExport): AsyncGenerator<string> {
  const { read, req, org } = o;
  const userPage = req.withHistory ? HISTORY_PAGE : PAGE;
  for (const type of ['human', 'machine'] as const) {
    yield* pagedList<UserRow>(
      `${type}Users`,
      (last) => read.transfer.usersPage(org.id, type, last?.id ?? '', userPage),
      async (page) => {
        const toItem = type === 'machine' ? machineUser : await humanUsers(o, page);
        return req.withHistory ? withHistories(read, 'user', page, (u) => u.id, toItem) : toItem;
      },
      o.deadline,
      userPage,
    );
  }
}

/** The item maker of a page of human users (their TOTP secrets read for the page at once). */
async function humanUsers(o: OrgExport, page: UserRow[]): Promise<(u: UserRow) => unknown> {
  const otp = o.req.withOtp ? await o.read.transfer.otpSecrets(page.map((u) => u.id)) : undefined;
  return (u) => {
    const app = otp?.get(u.id);
    return humanUser(u, o.req, app ? { secret: openOtpSecret(o.secrets, app.secret), lastStep: app.lastStep } : undefined);
  };
}

/** userMetadata: ZITADEL's SetUserMetadataRequest (id = the user). */
export const userMetadata = (o: OrgExport) =>
  pagedList<MetadataRow>(
    'userMetadata',
    (last) => o.read.userMetadata.pageByOrg(o.org.id, last, PAGE),
    () => (m) => ({ id: m.userId, key: m.key, value: m.value }),
    o.deadline,
  );

export const userLinks = (o: OrgExport) =>
  pagedList<LinkRow>(
    'userLinks',
    (last) => o.read.idpLinks.pageByOrg(o.org.id, last, PAGE),
    async (page) => {
      const views = await toLinkViews(o.read, page);
      const byRow = new Map(page.map((row, i) => [row, views[i]]));
      return (row) => byRow.get(row);
    },
    o.deadline,
  );

function humanUser(u: UserRow, req: ExportRequest, otp: { secret: string; lastStep?: number } | undefined) {
  const data = u.data as { profile?: Record<string, unknown>; email?: Record<string, unknown>; phone?: Record<string, unknown> };
  return {
    userId: u.id,
    user: compact({
      userName: u.userName,
      profile: compact(data.profile ?? {}),
      email: compact(data.email ?? {}),
      phone: data.phone ? compact(data.phone) : undefined,
      hashedPassword: req.withPasswords && u.passwordHash ? { value: u.passwordHash } : undefined,
      passwordChangeRequired: req.withPasswords ? u.passwordChangeRequired : undefined,
      otpCode: req.withOtp ? otp?.secret : undefined,
    }),
    state: u.state,
    // The step of the last code the source accepted: at the target, that code and older ones stay spent.
    identityServiceOtpLastStep: req.withOtp ? otp?.lastStep : undefined,
  };
}

function machineUser(u: UserRow) {
  const data = u.data as { name?: string; description?: string; accessTokenType?: string };
  return {
    userId: u.id,
    user: compact({
      userName: u.userName,
      name: data.name,
      description: data.description,
      // Exported, unlike ZITADEL, so JWT machine users stay JWT machine users (reference §9).
      accessTokenType: data.accessTokenType === 'ACCESS_TOKEN_TYPE_BEARER' ? undefined : data.accessTokenType,
    }),
    state: u.state,
  };
}
