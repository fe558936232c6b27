/**
 * Generated ids are numeric strings that sort by creation time, like ZITADEL's sonyflake ids:
 * milliseconds since 2020-01-01 in the high bits, then a per-process random node number and a
 * per-millisecond counter, so processes sharing one store do not collide.
 */
import { randomInt } from 'node:crypto';

const EPOCH = Date.UTC(2020, 0, 1);
const NODE_BITS = 10n;
const COUNTER_BITS = 12n;
const node = BigInt(randomInt(1 << Number(NODE_BITS)));
let lastMs = 0;
let counter = 0;

export function newId(): string {
  let now = Date.now();
  if (now === lastMs) {
    counter++;
    if (counter >= 1 << Number(COUNTER_BITS)) {
      // Counter exhausted within this millisecond: borrow the next one.
      while (now <= lastMs) now = Date.now();
      counter = 0;
    }
  } else if (now < lastMs) {
    // Clock went backwards: keep ids monotonic by staying on the last millisecond.
    now = lastMs;
    counter++;
  } else {
    counter = 0;
  }
  lastMs = now;
  const id = (BigInt(now - EPOCH) << (NODE_BITS + COUNTER_BITS)) | (node << COUNTER_BITS) | BigInt(counter);
  return id.toString();
}
