/**
 * Export and import run for minutes on large instances; whoever watches the server's log sees
 * one line per organisation finished. The HTTP layer decides where the lines go.
 */
export interface TransferProgress {
  step: 'export' | 'import';
  orgId: string;
  /** Organisations finished so far, this one included, and how many there are in all. */
  done: number;
  total: number;
  /** The import's: users in this organisation's entry of the document. */
  users?: number;
  elapsedMs: number;
}

export type OnTransferProgress = (progress: TransferProgress) => void;

/**
 * During one organisation's import, after each batch of its users: how many of them its transaction
 * has taken so far (an import job's "users done" advances with it; rolled back with the organisation
 * if that fails, and counted afresh if the store runs the transaction again).
 */
export interface OrgUsersProgress {
  orgId: string;
  usersDone: number;
}

export type OnOrgUsersProgress = (progress: OrgUsersProgress) => void;
