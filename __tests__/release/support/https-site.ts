/**
 * A static HTTPS site on loopback (port 0) for the release tests, with a certificate from a
 * test CA made here by openssl: terraform trusts the CA through SSL_CERT_FILE, as an
 * organisation's machines trust their internal CA.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { HEADERS_FILE, parseHeadersFile } from '../../../scripts/release/module-registry';

export interface TestCertificateAuthority {
  /** The CA certificate (PEM file) to trust. */
  readonly caFile: string;
  readonly serverKeyPem: string;
  readonly serverCertificatePem: string;
}

function openssl(args: readonly string[], cwd: string): void {
  const run = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`openssl ${args[0]} failed (exit ${run.status}): ${run.stderr}`);
}

/** A CA and a server certificate for 127.0.0.1 and localhost, valid for a day. */
export function makeTestCertificateAuthority(directory: string): TestCertificateAuthority {
  fs.mkdirSync(directory, { recursive: true });
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(['req', '-x509', ...curve, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=svc-prevent release test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign'], directory);
  openssl(['req', ...curve, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'], directory);
  fs.writeFileSync(path.join(directory, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'server.ext'], directory);
  return {
    caFile: path.join(directory, 'ca.pem'),
    serverKeyPem: fs.readFileSync(path.join(directory, 'server.key'), 'utf8'),
    serverCertificatePem: fs.readFileSync(path.join(directory, 'server.pem'), 'utf8'),
  };
}

export interface StaticSite {
  /** https://127.0.0.1:<port> (no trailing slash). */
  readonly url: string;
  /** Paths requested so far, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * Serves the files under root; JSON documents (also the extension-less registry ones) as
 * application/json. Like Netlify and Cloudflare Pages, it adds the headers root's `_headers`
 * file gives for a path (read at each request) and does not serve that file.
 */
export async function serveStaticSite(root: string, authority: TestCertificateAuthority): Promise<StaticSite> {
  const requests: string[] = [];
  const server = https.createServer({ key: authority.serverKeyPem, cert: authority.serverCertificatePem }, (request, response) => {
    const urlPath = decodeURIComponent(new URL(request.url ?? '/', 'https://site.test').pathname);
    requests.push(urlPath);
    const file = path.join(root, path.normalize(urlPath));
    if (!file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile() || urlPath === `/${HEADERS_FILE}`) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const json = file.endsWith('.json') || path.extname(file) === '';
    const headersFile = path.join(root, HEADERS_FILE);
    const extra = fs.existsSync(headersFile) ? (parseHeadersFile(fs.readFileSync(headersFile, 'utf8')).get(urlPath) ?? []) : [];
    const headers: Record<string, string> = { 'content-type': json ? 'application/json' : 'application/octet-stream' };
    for (const line of extra) headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    response.writeHead(200, headers);
    fs.createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
