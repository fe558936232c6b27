#!/usr/bin/env node
/**
 * The node-gyp npm runs when a package compiles (.npmrc `node-gyp=scripts/node-gyp.mjs`; here only
 * better-sqlite3, after its prebuilt download failed): npm's own node-gyp, told which headers to
 * use. It compiles for the Node running it, which is the Node npm's scripts run on (README
 * "Runtime"): the project's Node 24 where npm ci installed it (Linux x64), else the system's.
 * Without this, a machine-wide `nodedir` (here ~/.npmrc has `nodedir=/usr`, the system's Node 20)
 * would compile for that Node instead, and a project-wide one can name only one platform's Node.
 */
import { spawnSync } from 'node:child_process';
import { nodeHeadersDir, npmNodeGyp } from './node-headers.mjs';

const env = { ...process.env };
const headers = nodeHeadersDir(env.npm_config_nodedir);
if (headers) env.npm_config_nodedir = headers;
else delete env.npm_config_nodedir;
console.error(`node-gyp for Node ${process.version} (ABI ${process.versions.modules}): headers ${headers ? `of ${headers}/include/node` : 'downloaded by node-gyp'}`);

const result = spawnSync(process.execPath, [npmNodeGyp(), ...process.argv.slice(2)], { stdio: 'inherit', env });
if (result.error) throw result.error;
process.exit(result.status ?? 1);
