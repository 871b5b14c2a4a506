'use strict';
/**
 * One health check as the load balancer's target group makes it, from the instance:
 *   node target-health-check.js <GRPC|HTTP1> <port> <path> <matcher>
 * over TLS without verifying the certificate (ALB does not verify targets). GRPC: a POST of an
 * empty HealthCheckRequest over HTTP/2, healthy when the grpc-status matches; HTTP1: a GET,
 * healthy when the HTTP status matches. Prints what it got; exit 0 when healthy.
 */
const http2 = require('node:http2');
const https = require('node:https');

const [protocolVersion, port, path, matcher] = process.argv.slice(2);
const verdict = (got) => {
  process.stdout.write(`${protocolVersion} ${port}${path}: ${got}\n`);
  process.exit(String(got) === matcher ? 0 : 1);
};
const fail = (error) => {
  process.stdout.write(`${protocolVersion} ${port}${path}: ${error.code ?? error.message}\n`);
  process.exit(1);
};
setTimeout(() => fail(new Error('timed out')), 5000).unref();

if (protocolVersion === 'GRPC') {
  const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
  session.on('error', fail);
  const request = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
  let status;
  request.on('response', (headers) => (status = headers['grpc-status']));
  request.on('trailers', (trailers) => (status = trailers['grpc-status']));
  request.on('error', fail);
  request.resume();
  request.on('end', () => {
    session.close();
    verdict(status);
  });
  request.end(Buffer.from([0, 0, 0, 0, 0]));
} else {
  https
    .get({ host: '127.0.0.1', port: Number(port), path, rejectUnauthorized: false }, (response) => {
      response.resume();
      verdict(response.statusCode);
    })
    .on('error', fail);
}
