import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Normalises an allowed-domain entry (contract part 2): scheme, user info, path, port, a
 * trailing dot and a leading `www.` are removed and the rest lower-cased; `*.example.com`
 * wildcards are kept. Returns undefined for anything that is not a hostname, IP address or
 * wildcard hostname.
 */
export function normaliseDomain(input: string): string | undefined {
  let host = input.trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  host = host.replace(/^[^@/?#]*@/, '');
  host = host.split(/[/?#]/, 1)[0] ?? '';
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end === -1) return undefined;
    const ipv6 = host.slice(1, end);
    return isIP(ipv6) === 6 ? ipv6 : undefined;
  }
  if (isIP(host) === 6) return host;
  host = host.replace(/:\d{1,5}$/, '').replace(/\.$/, '');
  if (isIP(host) === 4) return host;
  const wildcard = host.startsWith('*.');
  const name = wildcard ? host.slice(2) : host.replace(/^www\./, '');
  const ascii = domainToASCII(name);
  if (!ascii || ascii.length > 253 || !ascii.split('.').every((label) => LABEL.test(label))) return undefined;
  return wildcard ? `*.${ascii}` : ascii;
}
