// DNS-rebinding protection for the MCP endpoints (MCP transports spec, security warning): a web
// page the operator visits must not be able to drive the gateway. A browser always sends
// `Origin` on such requests: it must name an allowed host. Bound to loopback, the `Host` header
// must name the machine too (a rebound name such as evil.example resolves to 127.0.0.1 but keeps
// its own Host). Non-browser clients send no Origin and pass. The checks are the SDK's own
// validators; the answer is a 403 in this gateway's error shape.
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { Config } from '../config.ts';
import { jsonResponse as json } from '../json.ts';

const LOCALHOST = ['localhost', '127.0.0.1', '[::1]'];
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;
const ANY_ADDRESS = new Set(['0.0.0.0', '::', '[::]', '']);
const MAX_HOST_VERDICTS = 64;

/** The hostnames browsers may reach the MCP endpoints from: localhost, the listen address, the setting. */
export function allowedHosts(config: Pick<Config, 'host' | 'mcpAllowedOrigins'>): string[] {
  const listen = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  const hosts = [...LOCALHOST, ...(ANY_ADDRESS.has(config.host) ? [] : [listen.toLowerCase()]), ...config.mcpAllowedOrigins];
  return [...new Set(hosts)];
}

/** Returns the 403 for a request from a foreign origin (or, bound to loopback, for a foreign host). */
export function originGuard(config: Pick<Config, 'host' | 'mcpAllowedOrigins'>): (request: Request) => Response | undefined {
  const hosts = allowedHosts(config);
  const checkHost = LOOPBACK.test(config.host);
  const refuse = (what: string) =>
    json(403, {
      error: `${what} not allowed`,
      hint: `The MCP endpoints of this gateway accept requests from browsers only on these hosts: ${hosts.join(', ')}. An operator adds more with MCP_ALLOWED_ORIGINS.`,
      live_status: 'FAILED',
    });
  // The Host check parses the header as a URL (about 2 µs, as much as a third of a direct tool
  // call's own work), and clients send the same value on every request: its verdict is kept. A
  // client sending ever new values only empties the table, it cannot grow it.
  const verdicts = new Map<string, boolean>();
  const hostAllowed = (host: string | null) => {
    if (host === null) return validateHostHeader(host, hosts).ok;
    let ok = verdicts.get(host);
    if (ok === undefined) {
      ok = validateHostHeader(host, hosts).ok;
      if (verdicts.size >= MAX_HOST_VERDICTS) verdicts.clear();
      verdicts.set(host, ok);
    }
    return ok;
  };
  return (request) => {
    if (!validateOriginHeader(request.headers.get('origin') ?? undefined, hosts).ok) return refuse('Origin');
    if (checkHost && !hostAllowed(request.headers.get('host'))) return refuse('Host');
    return undefined;
  };
}
