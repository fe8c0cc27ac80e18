// Name resolution for webhook deliveries. A name is resolved by the system (getaddrinfo, /etc/hosts
// included) or, when WEBHOOK_DNS_SERVERS names servers, by those alone (tests point it at a DNS
// server they control). `guardedLookup` is the lookup node:http connects with: every address the
// name has must be public (unless private ones are allowed), so the address checked is the address
// connected to, at each delivery (DNS rebinding).
import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { refusedAddress, RefusedUrl } from './address-policy.ts';

export type Resolve = (host: string) => Promise<LookupAddress[]>;

export function resolver(servers: string[]): Resolve {
  if (servers.length === 0) return (host) => dns.lookup(host, { all: true, verbatim: true });
  const r = new dns.Resolver({ timeout: 2000, tries: 2 });
  r.setServers(servers);
  return async (host) => {
    const settled = await Promise.allSettled([r.resolve4(host), r.resolve6(host)]);
    const out: LookupAddress[] = [];
    for (const [i, s] of settled.entries()) if (s.status === 'fulfilled') for (const address of s.value) out.push({ address, family: i === 0 ? 4 : 6 });
    if (out.length === 0) throw new Error(`${host} does not resolve`);
    return out;
  };
}

/** The addresses of `host`, all allowed, or a RefusedUrl naming the first that is not. */
export async function allowedAddresses(resolve: Resolve, host: string, allowPrivate: boolean): Promise<LookupAddress[]> {
  const addrs = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  if (!allowPrivate) {
    for (const a of addrs) {
      const why = refusedAddress(a.address);
      if (why) throw new RefusedUrl(`${host} resolves to a non-public address (${why})`);
    }
  }
  return addrs;
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A node:http `lookup` option that resolves with `resolve` and refuses a name with any non-public address. */
export function guardedLookup(resolve: Resolve, allowPrivate: boolean) {
  return (host: string, opts: { all?: boolean }, cb: LookupCallback) => {
    allowedAddresses(resolve, host, allowPrivate).then(
      (addrs) => (opts?.all ? cb(null, addrs) : cb(null, addrs[0]!.address, addrs[0]!.family)),
      (e: Error) => cb(e, ''),
    );
  };
}
