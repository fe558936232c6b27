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
