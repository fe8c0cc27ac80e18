// Where a webhook may point (SSRF): pure checks on a URL and on the addresses its name resolves to.
// Only public unicast addresses are allowed; every other range ipaddr.js knows (loopback, private,
// link-local with the cloud metadata address, CGNAT, multicast, broadcast, reserved, IPv6 ULA,
// link-local, and the IPv6 forms that embed an IPv4 address: mapped, NAT64, 6to4, Teredo) is refused.
// IPv4 spelled in decimal, octal or hex (2130706433, 0177.0.0.1, 0x7f.1) reaches here already
// normalised by the WHATWG URL parser, so one check covers every spelling.
import ipaddr from 'ipaddr.js';

export class RefusedUrl extends Error {}

/** Why `ip` may not be connected to, or null when it is a public unicast address. */
export function refusedAddress(ip: string): string | null {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
    addr = ipaddr.process(ip.replace(/^\[|\]$/g, ''));
  } catch {
    return `${ip} is not an IP address`;
  }
  const range = addr.range();
  return range === 'unicast' ? null : `${addr.toString()} is a ${range} address, not a public one`;
}

/** The host to resolve and whether it is an address literal; throws RefusedUrl for a URL no webhook may have. */
export function webhookTarget(raw: string, allowPrivate: boolean): { url: URL; host: string; literal: boolean } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedUrl('webhookUrl is not a URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw new RefusedUrl('webhookUrl must use https');
  if (url.username || url.password) throw new RefusedUrl('webhookUrl must not carry a user name or password');
  if (raw.length > 2048) throw new RefusedUrl('webhookUrl is longer than 2048 characters');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = ipaddr.isValid(host);
  if (literal && !allowPrivate) {
    const why = refusedAddress(host);
    if (why) throw new RefusedUrl(`webhookUrl must point to a public address: ${why}`);
  }
  if (!literal && !/^[a-z0-9.-]+$/i.test(host)) throw new RefusedUrl('webhookUrl has a host name that is not a DNS name');
  return { url, host, literal };
}
