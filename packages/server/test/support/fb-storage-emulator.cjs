// firebase-tools' own Cloud Storage emulator, without its Java rules runtime (the JSON API
// routes the storage client uses go through the admin layer and need no rules). This uses
// private internals of firebase-tools, so its version is pinned exactly in package.json.
// Usage: PORT=… node fb-storage-emulator.cjs   → prints "ready", stops on SIGTERM.
const { StorageEmulator } = require('firebase-tools/lib/emulator/storage/index.js');
const { EmulatorRegistry } = require('firebase-tools/lib/emulator/registry.js');

const port = Number(process.env.PORT || 9199);
const emulator = new StorageEmulator({ projectId: 'demo-test', host: '127.0.0.1', port, rules: undefined, auto_download: false });
const noop = async () => {};
emulator._rulesRuntime.start = noop;
emulator._rulesRuntime.stop = noop;
emulator._rulesManager.start = noop;
emulator._rulesManager.stop = noop;
// Without the registry the emulator cannot tell its own host and port.
EmulatorRegistry.start(emulator).then(
  () => process.stdout.write('ready\n'),
  (error) => {
    process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  },
);
const stop = () => EmulatorRegistry.stop('storage').finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
