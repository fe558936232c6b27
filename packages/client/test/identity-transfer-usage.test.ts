/**
 * The CLI's help and its messages when the service cannot be reached (no server needed).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type CliIo, main } from '../src/cli/identity-transfer.js';

function capture(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, tty: false, stdout: (l) => out.push(l), stderr: (l) => err.push(l) };
}

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('identity-transfer help', () => {
  for (const [command, option] of [
    ['export', '--out'],
    ['import', '--timeout'],
    ['migrate', '--from-url'],
    ['verify', '--with-passwords'],
  ] as const) {
    it(`${command} --help / -h / help ${command} print the command's usage and options, exit 0`, async () => {
      for (const argv of [
        [command, '--help'],
        [command, '-h'],
        ['help', command],
        [command, '--url', 'http://x', '--help'],
      ]) {
        const io = capture();
        expect(await main(argv, io), argv.join(' ')).toBe(0);
        const text = io.out.join('\n');
        expect(text).toMatch(new RegExp(`^usage: identity-transfer ${command} `));
        expect(text).toContain(option);
        // Only this command's usage, with a line per option.
        expect(text).not.toMatch(new RegExp(`identity-transfer (?!${command})(export|import|migrate|verify) `));
      }
    });
  }

  it("verify refuses the import's and export's own options (it writes nothing)", async () => {
    for (const option of ['--dry-run', '--out=x.json', '--conflict-policy=SKIP']) {
      await expect(main(['verify', '--from-url', 'http://a', '--from-token', 'a', '--to-url', 'http://b', '--to-token', 'b', option], capture())).rejects.toThrow(
        new RegExp(`${option.split('=')[0]} is not an option of verify`),
      );
    }
  });

  it('an unknown option is a usage error naming it and showing the command usage', async () => {
    await expect(main(['export', '--frobnicate'], capture())).rejects.toThrow(/unknown option '--frobnicate'[\s\S]*usage: identity-transfer export/i);
  });
});

describe('identity-transfer when the service cannot be reached', () => {
  it('connection refused: names the host and port and the reason', async () => {
    const port = await closedPort();
    await expect(main(['export', '--url', `http://127.0.0.1:${port}`, '--token', 't', '--out', '/tmp/never.json'], capture())).rejects.toThrow(
      new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}: connection refused`),
    );
    await expect(main(['migrate', '--from-url', `http://127.0.0.1:${port}`, '--from-token', 'a', '--to-url', 'http://127.0.0.1:1', '--to-token', 'b'], capture())).rejects.toThrow(
      new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}: connection refused`),
    );
  });

  it('an unknown host: names the host and says the name did not resolve', async () => {
    await expect(main(['export', '--url', 'http://no-such-host.invalid:8080', '--token', 't', '--out', '/tmp/never.json'], capture())).rejects.toThrow(
      /cannot reach http:\/\/no-such-host\.invalid:8080: host name not found \(DNS/,
    );
  });

  it('TLS failure (https to a plain-HTTP port): names the host and says TLS failed', async () => {
    const server = createServer((_req, res) => res.end('plain'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await expect(main(['import', '--url', `https://127.0.0.1:${port}`, '--token', 't', new URL(import.meta.url).pathname], capture())).rejects.toThrow(
        new RegExp(`cannot reach https://127\\.0\\.0\\.1:${port}: TLS failed`),
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
