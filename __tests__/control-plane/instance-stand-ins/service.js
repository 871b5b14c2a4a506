'use strict';
/**
 * The stand-in image of a control plane service (STAND_IN_SERVICE: analyzer, sts or otel), run
 * by node as the image's user (10001). It does what the container contract asks of a vendor
 * image, and reports what it found, one `name: value` line each (the API key only as a hash):
 * reads its settings from the environment (SVC_*), its certificate and key from /etc/svc/tls,
 * the API key from the file SVC_API_KEY_FILE names (analyzer, otel), the collector its
 * configuration from --config; then answers the health check the target group makes, over TLS:
 * analyzer: gRPC health on 50051; sts: HTTPS GET /health on 443; otel: OTLP/HTTP on 4318 and
 * the health-check extension at the endpoint and path of its configuration.
 * Any file it cannot read ends it with status 1 (and a `failed:` line), as a real service would.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const http2 = require('node:http2');
const https = require('node:https');

const service = process.env.STAND_IN_SERVICE;
const report = (name, value) => process.stdout.write(`${name}: ${value}\n`);
function read(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    report('failed', `cannot read ${file}: ${error.code}`);
    process.exit(1);
  }
}
const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');

report('service', service);
report('uid', process.getuid());
for (const name of Object.keys(process.env).filter((key) => key.startsWith('SVC_')).sort()) report('env', `${name}=${process.env[name]}`);
const tls = { cert: read('/etc/svc/tls/tls.crt'), key: read('/etc/svc/tls/tls.key') };
report('tls-certificate-sha256', sha256(tls.cert));
let writable = 'no';
try {
  fs.writeFileSync('/etc/svc/tls/probe', '');
  writable = 'yes';
} catch {}
report('tls-directory-writable', writable);

let apiKey;
if (service !== 'sts') {
  if (!process.env.SVC_API_KEY_FILE) {
    report('failed', 'SVC_API_KEY_FILE is not set');
    process.exit(1);
  }
  apiKey = read(process.env.SVC_API_KEY_FILE);
  report('api-key-sha256', sha256(apiKey));
}

const listening = [];
function listen(server, port, what) {
  listening.push(new Promise((resolve) => server.listen(port, '0.0.0.0', resolve)));
  report('listens', `${port} ${what}`);
}

if (service === 'analyzer') {
  const server = http2.createSecureServer(tls);
  server.on('stream', (stream, headers) => {
    const grpc = String(headers['content-type'] ?? '').startsWith('application/grpc');
    if (headers[':method'] === 'POST' && headers[':path'] === '/grpc.health.v1.Health/Check' && grpc) {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      // HealthCheckResponse { status: SERVING (1) }, length-prefixed.
      stream.end(Buffer.from([0, 0, 0, 0, 2, 0x08, 0x01]));
    } else {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' }, { endStream: true });
    }
  });
  listen(server, 50051, 'grpc');
} else if (service === 'sts') {
  listen(https.createServer(tls, (request, response) => response.writeHead(request.url === '/health' ? 200 : 404).end()), 443, 'https');
} else if (service === 'otel') {
  const configFile = process.argv[process.argv.indexOf('--config') + 1];
  const config = read(configFile);
  report('config', configFile);
  report('config-carries-api-key', config.includes(`authorization: Bearer ${apiKey}`) ? 'yes' : 'no');
  const health = /health_check:\n\s+endpoint: 0\.0\.0\.0:(\d+)\n\s+path: (\S+)\n\s+tls:\n\s+cert_file: (\S+)\n\s+key_file: (\S+)/.exec(config);
  const otlp = /http:\n\s+endpoint: 0\.0\.0\.0:(\d+)\n\s+tls:\n\s+cert_file: (\S+)\n\s+key_file: (\S+)/.exec(config);
  if (!health || !otlp) {
    report('failed', 'no health_check or otlp http endpoint with tls in the configuration');
    process.exit(1);
  }
  const healthTls = { cert: read(health[3]), key: read(health[4]) };
  listen(https.createServer(healthTls, (request, response) => response.writeHead(request.url === health[2] ? 200 : 404).end('{"status":"Server available"}')), Number(health[1]), `health ${health[2]}`);
  const otlpTls = { cert: read(otlp[2]), key: read(otlp[3]) };
  listen(https.createServer(otlpTls, (request, response) => response.writeHead(request.method === 'POST' ? 200 : 405).end()), Number(otlp[1]), 'otlp');
} else {
  report('failed', `unknown STAND_IN_SERVICE ${service}`);
  process.exit(1);
}
process.on('SIGTERM', () => process.exit(0));
Promise.all(listening).then(() => report('ready', 'yes'));
