'use strict';
/**
 * What a control plane instance reaches besides the AWS CLI, stood in inside the instance's own
 * network namespace (so on its loopback), run by the instance's node:
 * - the instance metadata service on 169.254.169.254:80, IMDSv2 only (a GET without a token
 *   from PUT /latest/api/token is refused, as the launch template's http_tokens = required does);
 * - a read-only container registry on 127.0.0.1:5000 (the test maps the registry's host name to
 *   it) serving the OCI layout in /srv/registry, behind HTTP basic auth with the login of
 *   /srv/registry/login.json, as a private registry does; repositories under public/ can be
 *   pulled without a login, as from a public registry;
 * - Amazon ECR: the same images on 127.0.0.1:80 (the test maps an ECR host name such as
 *   123456789012.dkr.ecr.eu-west-1.amazonaws.com to it; podman, told the host is insecure, falls
 *   back from HTTPS on 443 to HTTP on 80), behind the login ECR expects: user `AWS` and the
 *   password of /srv/registry/ecr-password, which the AWS CLI stand-in's
 *   `ecr get-login-password` answers.
 * Requests are recorded in /var/log/stand-ins/endpoints (method, path, status; never a header).
 * Writes /var/log/stand-ins/endpoints-ready once all three listen.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const RECORD = '/var/log/stand-ins';
const REGISTRY = '/srv/registry';
const IDENTITY = JSON.parse(fs.readFileSync('/srv/aws/identity.json', 'utf8'));
const tokens = new Set();

function record(server, request, status) {
  fs.appendFileSync(path.join(RECORD, 'endpoints'), `${server} ${request.method} ${request.url} ${status}\n`);
}

function answer(server, request, response, status, body = '', headers = {}) {
  record(server, request, status);
  response.writeHead(status, { 'content-length': Buffer.byteLength(body), ...headers });
  response.end(request.method === 'HEAD' ? undefined : body);
}

const metadata = http.createServer((request, response) => {
  if (request.method === 'PUT' && request.url === '/latest/api/token') {
    const ttl = Number(request.headers['x-aws-ec2-metadata-token-ttl-seconds']);
    if (!(ttl >= 1 && ttl <= 21600)) return answer('imds', request, response, 400);
    const token = crypto.randomBytes(24).toString('base64');
    tokens.add(token);
    return answer('imds', request, response, 200, token);
  }
  if (request.method !== 'GET') return answer('imds', request, response, 405);
  if (!tokens.has(request.headers['x-aws-ec2-metadata-token'])) return answer('imds', request, response, 401);
  const values = { '/latest/meta-data/placement/region': IDENTITY.region, '/latest/meta-data/instance-id': IDENTITY.instanceId };
  if (!(request.url in values)) return answer('imds', request, response, 404);
  return answer('imds', request, response, 200, values[request.url]);
});

const basicAuthorization = (username, password) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const login = JSON.parse(fs.readFileSync(path.join(REGISTRY, 'login.json'), 'utf8'));
const ecrPassword = fs.readFileSync(path.join(REGISTRY, 'ecr-password'), 'utf8').trim();
const tags = JSON.parse(fs.readFileSync(path.join(REGISTRY, 'tags.json'), 'utf8'));

function blob(digest) {
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) return undefined;
  const file = path.join(REGISTRY, 'blobs', 'sha256', digest.slice('sha256:'.length));
  return fs.existsSync(file) ? file : undefined;
}

/** A registry serving the OCI layout; `anonymousPrefix` names repositories pulled without a login. */
const registryServer = (server, expectedAuthorization, anonymousPrefix) => http.createServer((request, response) => {
  const anonymous = anonymousPrefix !== undefined && request.url.startsWith(anonymousPrefix);
  if (!anonymous && request.headers.authorization !== expectedAuthorization) {
    return answer(server, request, response, 401, '{"errors":[{"code":"UNAUTHORIZED"}]}', { 'www-authenticate': `Basic realm="stand-in ${server}"`, 'content-type': 'application/json' });
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return answer(server, request, response, 405);
  if (request.url === '/v2/') return answer(server, request, response, 200, '{}', { 'content-type': 'application/json' });
  const manifest = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(request.url);
  if (manifest) {
    const digest = manifest[2].startsWith('sha256:') ? manifest[2] : tags[`${manifest[1]}:${manifest[2]}`];
    const file = digest === undefined ? undefined : blob(digest);
    if (file === undefined) return answer(server, request, response, 404, '{"errors":[{"code":"MANIFEST_UNKNOWN"}]}', { 'content-type': 'application/json' });
    return answer(server, request, response, 200, fs.readFileSync(file), { 'content-type': 'application/vnd.oci.image.manifest.v1+json', 'docker-content-digest': digest });
  }
  const blobRequest = /^\/v2\/(.+)\/blobs\/(sha256:[0-9a-f]{64})$/.exec(request.url);
  const file = blobRequest ? blob(blobRequest[2]) : undefined;
  if (file === undefined) return answer(server, request, response, 404, '{"errors":[{"code":"BLOB_UNKNOWN"}]}', { 'content-type': 'application/json' });
  record(server, request, 200);
  response.writeHead(200, { 'content-length': fs.statSync(file).size, 'content-type': 'application/octet-stream', 'docker-content-digest': blobRequest[2] });
  if (request.method === 'HEAD') return response.end();
  fs.createReadStream(file).pipe(response);
});

let listening = 0;
const ready = () => {
  listening += 1;
  if (listening === 3) fs.writeFileSync(path.join(RECORD, 'endpoints-ready'), '');
};
metadata.listen(80, '169.254.169.254', ready);
registryServer('registry', basicAuthorization(login.username, login.password), '/v2/public/').listen(5000, '127.0.0.1', ready);
registryServer('ecr', basicAuthorization('AWS', ecrPassword)).listen(80, '127.0.0.1', ready);
