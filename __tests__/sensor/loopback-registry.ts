/** A read-only container registry on 127.0.0.1 (port 0, plain HTTP) serving one OCI image
 *  layout directory (what `podman push IMAGE oci:DIR:TAG` writes), for the tests that need
 *  podman to pull: enough of the distribution API for a pull (ping, manifests by tag or digest,
 *  blobs), nothing else. */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';

interface LayoutIndex {
  readonly manifests: ReadonlyArray<{ readonly digest: string; readonly mediaType: string; readonly annotations?: Record<string, string> }>;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export class LoopbackRegistry {
  private constructor(
    private readonly server: http.Server,
    /** host:port, the registry part of an image reference. */
    readonly location: string,
  ) {}

  /** Serves `layoutDirectory` as repository `repository`; its tags are the layout's ref names. */
  static async start(layoutDirectory: string, repository: string): Promise<LoopbackRegistry> {
    const index = JSON.parse(fs.readFileSync(path.join(layoutDirectory, 'index.json'), 'utf8')) as LayoutIndex;
    const blobPath = (digest: string): string => path.join(layoutDirectory, 'blobs', 'sha256', digest.slice('sha256:'.length));
    const server = http.createServer((request, response) => {
      const send = (status: number, body: Buffer | string, headers: Record<string, string> = {}): void => {
        response.writeHead(status, { 'Docker-Distribution-API-Version': 'registry/2.0', 'Content-Length': String(Buffer.byteLength(body)), ...headers });
        response.end(request.method === 'HEAD' ? undefined : body);
      };
      const url = new URL(request.url ?? '/', 'http://registry');
      if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'read-only registry');
      if (url.pathname === '/v2/' || url.pathname === '/v2') return send(200, '{}', { 'Content-Type': 'application/json' });
      const match = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
      if (!match || match[1] !== repository) return send(404, '{"errors":[{"code":"NAME_UNKNOWN"}]}', { 'Content-Type': 'application/json' });
      const [, , kind, reference] = match;
      if (kind === 'manifests') {
        const entry = index.manifests.find((manifest) => manifest.digest === reference || manifest.annotations?.['org.opencontainers.image.ref.name'] === reference);
        if (!entry) return send(404, '{"errors":[{"code":"MANIFEST_UNKNOWN"}]}', { 'Content-Type': 'application/json' });
        return send(200, fs.readFileSync(blobPath(entry.digest)), { 'Content-Type': entry.mediaType, 'Docker-Content-Digest': entry.digest });
      }
      if (!DIGEST.test(reference) || !fs.existsSync(blobPath(reference))) return send(404, '{"errors":[{"code":"BLOB_UNKNOWN"}]}', { 'Content-Type': 'application/json' });
      return send(200, fs.readFileSync(blobPath(reference)), { 'Content-Type': 'application/octet-stream', 'Docker-Content-Digest': reference });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return new LoopbackRegistry(server, `127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
