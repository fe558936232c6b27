/** The user aggregate's type: its events, and the lock every command on a user or its credentials, memberships and grants takes. */
export const USER_AGGREGATE = 'user';
