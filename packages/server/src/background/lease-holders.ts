/**
 * The names import-job workers put on their leases, and whether the process behind one is gone.
 *
 * A job whose process was killed keeps its lease until the lease runs out (IMPORT_JOB_LEASE_MS),
 * and until then its job showed the phase of the dead run. A process started again on the same
 * host can tell at once that the holder is gone, when the name says which process held it:
 * `<host>:<pid>:<random>:ns<pid namespace>`. The holder is gone when it was on this host, in this
 * pid namespace (the same container, or none), and no process has its pid any more — or its pid is
 * this process's own but the name is none of this process's workers (a restarted container's first
 * process often gets the same pid). Anything else — another host, another container, a pid now
 * someone else's, a name of the earlier form without a namespace — is judged by the lease alone.
 * Wrong answers err towards waiting: a pid reused by another process looks alive.
 */
import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** This process's pid namespace (Linux: the inode of /proc/self/ns/pid), when it can be read. */
const PID_NAMESPACE = (() => {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    return undefined;
  }
})();

/** The names of this process's workers: a name with this process's pid but not among them is an earlier process's. */
const OWN_NAMES = new Set<string>();

export function newLeaseOwner(): string {
  const name = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}${PID_NAMESPACE ? `:ns${PID_NAMESPACE}` : ''}`;
  OWN_NAMES.add(name);
  return name;
}

/** Whether the process that holds a lease named `owner` is known to have stopped. */
export function holderIsGone(owner: string): boolean {
  const name = /^(.+):(\d+):[0-9a-f]{8}:ns(\d+)$/.exec(owner);
  if (!name || name[1] !== hostname() || name[3] !== PID_NAMESPACE) return false;
  const pid = Number(name[2]);
  if (pid === process.pid) return !OWN_NAMES.has(owner);
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'; // EPERM: it exists, someone else's
  }
}
