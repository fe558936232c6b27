/** The results table (markdown, so it can be pasted into BENCHMARKS.md as printed). */
import type { Measurement } from './load.js';

export interface Row {
  target: string;
  store: string;
  m: Measurement;
  /** For writes: did every 2xx append exactly one event? undefined for reads. */
  eventsOk?: boolean;
  eventsNote?: string;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function renderTable(rows: Row[], bareRps: number | undefined): string {
  const header = ['target', 'store', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'vs bare', 'server CPU/req', 'events'];
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const r of rows) {
    const ratio = bareRps ? `${fmt((100 * r.m.requestsPerSecond) / bareRps, 1)} %` : 'n/a';
    const events = r.eventsOk === undefined ? '' : r.eventsOk ? `ok (${r.eventsNote})` : `MISMATCH (${r.eventsNote})`;
    lines.push(
      `| ${[r.target, r.store, fmt(r.m.requestsPerSecond), fmt(r.m.p50, 1), fmt(r.m.p99, 1), fmt(r.m.non2xx), fmt(r.m.errors), ratio, r.m.serverCpuMs === undefined ? '' : `${fmt(r.m.serverCpuMs * 1000)} µs`, events].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
