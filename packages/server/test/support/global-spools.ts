/**
 * After the whole run, the import spools its test processes left are removed, by the service's own
 * removal of orphans (domain/transfer/spool.ts, `removeLeftoverSpools`), which takes only folders
 * whose owning process is gone: the test workers have exited by then, another run's are left.
 *
 * Why some are left: a test that calls ImportData in process (`app.request`) and reads only the
 * answer's status never reads the answer's body to its end, and the spool goes when it has been
 * read (http/routes/admin-transfer.ts, `textStream`). Over HTTP the server reads the body whole or
 * cancels it when the client goes, so the service itself leaves none; one `npm test` left about 45.
 */
import { removeLeftoverSpools } from '../../src/domain/transfer/spool.js';

export default function setup() {
  return async () => {
    await removeLeftoverSpools();
  };
}
