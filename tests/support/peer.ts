// HTTP requests from a chosen loopback source address (127.0.0.2, 127.0.0.3, ...): the gateway sees
// a different client, as it would a different host. fetch cannot choose its source address;
// node:http's localAddress can.
import http from 'node:http';

export interface PeerResponse {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
}

export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<PeerResponse> {
  const target = new URL(url);
  const payload = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: init.method ?? (payload === undefined ? 'GET' : 'POST'),
        localAddress,
        headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
