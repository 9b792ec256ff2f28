/**
 * Which addresses a webhook may reach (design.md §11): no private, loopback, link-local (cloud
 * metadata), CGNAT, multicast or unspecified addresses, checked on the address actually connected
 * to — after DNS resolution — so that a public name pointing inside is refused too.
 */
import dns from 'node:dns';
import net from 'node:net';

const blocked = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is one a webhook must not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return blocked.check(mapped[1]!, 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** Refused: the host resolves to an address a webhook must not reach. */
export class PrivateAddressError extends Error {
  constructor(host: string, address: string) {
    super(
      `${host} resolves to ${address}, a private, loopback or link-local address (set WEBHOOK_ALLOW_PRIVATE=true to allow)`,
    );
    this.name = 'PrivateAddressError';
  }
}

/** A `lookup` for http.request that refuses private addresses at connect time. */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses;
    const bad = list.find((entry) => isPrivateAddress(entry.address));
    if (bad !== undefined) return callback(new PrivateAddressError(hostname, bad.address), '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as AllCallback)(null, list);
    const first = list[0];
    if (first === undefined) return callback(new Error(`${hostname} has no address`), '', 0);
    callback(null, first.address, first.family);
  });
};

type AllCallback = (error: Error | null, addresses: dns.LookupAddress[]) => void;
