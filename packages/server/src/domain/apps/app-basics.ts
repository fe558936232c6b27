/** What every kind of application (OIDC, API) shares: its lock, its not-found error, its name's rule. */
import { invalidArgument, notFound } from '../errors.js';

/** Commands on one application run one after the other (Store.transaction's locks). */
export const APP_LOCK = 'app';

export const appNotFound = () => notFound('APP-ij33f', 'App not found');

export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 200) throw invalidArgument('PROJECT-39mfs', 'Errors.Project.App.Invalid: name must have 1 to 200 characters');
  return trimmed;
}
