import { isIPv6 } from "node:net";

/**
 * The key the unauthenticated rate limit counts a caller under. IPv4 addresses count one by one;
 * an IPv6 caller usually holds a whole /64 and could rotate through it, so IPv6 addresses count
 * by their /64 prefix. IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`) count as the IPv4 address.
 */
export function rateLimitKeyOfAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(address)) return address;
  const withoutZone = address.split("%")[0] ?? address;
  const [head = "", tail = ""] = withoutZone.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = withoutZone.includes("::") ? (tail ? tail.split(":") : []) : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(Math.max(0, missing)).fill("0"), ...tailGroups];
  const prefix = groups.slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16));
  return `${prefix.join(":")}::/64`;
}
