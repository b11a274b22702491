import ipaddr from 'ipaddr.js';

/** IPv6 hands a whole /64 to one subscriber: counting single addresses would let one client rotate freely. */
const IPV6_CLIENT_PREFIX = 64;

/**
 * The client as every per-address limit counts it (rate limits, the send-otp hourly cap): an
 * IPv4 address as such, an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as its IPv4 address, an
 * IPv6 address as its /64 network (`2001:db8:1:2::/64`). Spellings of one address (upper case,
 * zeros written out, brackets, a port, a zone) are one client. Anything that is not an IP address
 * is counted as its own trimmed, lower-cased text.
 */
export function clientAddressKey(address: string | undefined | null): string | undefined {
  if (address === undefined || address === null) return undefined;
  const bare = stripDecorations(address.trim());
  if (!ipaddr.isValid(bare)) return address.trim().toLowerCase();
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, IPV6_CLIENT_PREFIX / 16);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/${IPV6_CLIENT_PREFIX}`;
}

/** `[v6]`, `[v6]:port`, `v4:port` and a zone (`fe80::1%eth0`) around the address itself. */
function stripDecorations(address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  const unbracketed = bracketed ? bracketed[1] : (/^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address)?.[1] ?? address);
  return unbracketed.replace(/%.*$/, '');
}
