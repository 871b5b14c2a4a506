/**
 * The admin routes carry no token: whoever can send them a request can unblock an address or
 * move the clock. A browser can reach 127.0.0.1 too, from any web page (a cross-site form post)
 * or through DNS rebinding (a name the attacker controls, re-pointed at 127.0.0.1). Admin
 * requests therefore must look like a program's: no Origin header (browsers send one on every
 * cross-site and every POST request), a Host that is `localhost` or an IP address (rebinding
 * needs a DNS name), and POST bodies declared as JSON (a page cannot send that cross-site
 * without a CORS preflight, which the emulator never grants).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

export interface AdminRefusal {
  status: 403 | 415;
  message: string;
}

/** `localhost`, `127.0.0.1:8080`, `[::1]:8080` → the name without port and brackets. */
function hostName(hostHeader: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(hostHeader);
  if (bracketed) return bracketed[1];
  return hostHeader.replace(/:\d*$/, '');
}

function isAllowedHost(hostHeader: string | undefined): boolean {
  // HTTP/1.0 clients may send none; every browser sends one.
  if (hostHeader === undefined) return true;
  const name = hostName(hostHeader.trim()).toLowerCase();
  return name === 'localhost' || name === 'localhost.' || isIP(name) !== 0;
}

function isJsonContentType(contentType: string | undefined): boolean {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json';
}

/** Why an admin request is refused, or undefined when it may run. */
export function adminRequestRefusal(method: string, headers: IncomingHttpHeaders): AdminRefusal | undefined {
  if (headers.origin !== undefined) {
    return {
      status: 403,
      message: `Admin routes refuse requests from web pages (Origin ${JSON.stringify(headers.origin)}); call them from a program or curl`,
    };
  }
  if (!isAllowedHost(headers.host)) {
    return {
      status: 403,
      message: `Admin routes answer only requests addressed to localhost or an IP address, not Host ${JSON.stringify(headers.host)} (a DNS name could be re-pointed at this machine by a web page)`,
    };
  }
  if (method === 'POST' && !isJsonContentType(headers['content-type'])) {
    return {
      status: 415,
      message: `Admin POST requests need Content-Type: application/json, got ${headers['content-type'] === undefined ? 'none' : JSON.stringify(headers['content-type'])}`,
    };
  }
  return undefined;
}
