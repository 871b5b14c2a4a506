/**
 * The floor of the bench's start-up figure: the least a Node provider does before terraform's
 * handshake line, and nothing of the provider. Built by the bench into a single executable of
 * the same Node, with the same options and code cache as the released provider
 * (scripts/release/build.ts, makeSingleExecutable), and started the same way.
 *
 * Like the provider it loads node:http2, makes a P-256 key pair, builds a TLS context that
 * requires terraform's client certificate (PLUGIN_CLIENT_CERT), listens on a unix socket in a
 * fresh directory under PLUGIN_UNIX_SOCKET_DIR and writes the line to fd 1. Unlike it, it takes
 * its server certificate ready-made (SVC_BENCH_FLOOR_KEY / SVC_BENCH_FLOOR_CERT, PEM), as node
 * has no API to issue one, and serves nothing. Plain CommonJS: a SEA's main script cannot be
 * TypeScript or a module.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const http2 = require('node:http2');
const { generateKeyPairSync } = require('node:crypto');

const { PLUGIN_UNIX_SOCKET_DIR, PLUGIN_CLIENT_CERT, SVC_BENCH_FLOOR_KEY, SVC_BENCH_FLOOR_CERT } = process.env;
if (!PLUGIN_UNIX_SOCKET_DIR || !PLUGIN_CLIENT_CERT || !SVC_BENCH_FLOOR_KEY || !SVC_BENCH_FLOOR_CERT) {
  fs.writeSync(2, 'handshake-floor: PLUGIN_UNIX_SOCKET_DIR, PLUGIN_CLIENT_CERT, SVC_BENCH_FLOOR_KEY and SVC_BENCH_FLOOR_CERT must be set (the bench sets them)\n');
  process.exit(2);
}
// The provider's certificate work starts with this; its DER and signature are the provider's part.
generateKeyPairSync('ec', { namedCurve: 'P-256' });
const server = http2.createSecureServer({ key: SVC_BENCH_FLOOR_KEY, cert: SVC_BENCH_FLOOR_CERT, ca: PLUGIN_CLIENT_CERT, requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'], minVersion: 'TLSv1.2' });
const directory = fs.mkdtempSync(path.join(PLUGIN_UNIX_SOCKET_DIR, 'floor-'));
const socket = path.join(directory, 'plugin.sock');
const removeDirectory = () => fs.rmSync(directory, { recursive: true, force: true });
process.on('exit', removeDirectory);
process.on('SIGTERM', () => process.exit(0));
server.listen(socket, () => fs.writeSync(1, `1|6|unix|${socket}|grpc|\n`));
