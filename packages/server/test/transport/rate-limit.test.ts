/** The sliding window behind the test sends' budget (domain/rate-limit.ts); no storage involved. */
import { expect, it } from 'vitest';
import { SlidingWindowLimit } from '../../src/domain/rate-limit.js';

it('allows `max` in any window, then tells the seconds until the oldest leaves it; keys are separate', () => {
  const limit = new SlidingWindowLimit(3, 60_000);
  for (const at of [0, 10_000, 20_000]) expect(limit.take('a', at)).toBeUndefined();
  expect(limit.take('a', 30_000)).toBe(30);
  expect(limit.take('b', 30_000)).toBeUndefined();
  // The first one left the window at 60 s: one is free again, and only one.
  expect(limit.take('a', 60_001)).toBeUndefined();
  expect(limit.take('a', 60_002)).toBe(10);
});

it('keeps at most maxKeys keys, forgetting the least recently used', () => {
  const limit = new SlidingWindowLimit(1, 60_000, 2);
  expect(limit.take('a', 0)).toBeUndefined();
  expect(limit.take('b', 0)).toBeUndefined();
  expect(limit.take('a', 1)).toBe(60); // a used again: b is now the oldest
  expect(limit.take('c', 2)).toBeUndefined(); // b forgotten
  expect(limit.take('b', 3)).toBeUndefined();
  expect(limit.take('a', 4)).toBeUndefined(); // a was forgotten when b came back
});
