import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * Which addresses webhooks may reach (docs/webhooks.md "Safety"). Endpoint URLs are chosen by
 * team ADMINs and requested from inside the operator's network, so hosts that are, or resolve
 * to, internal addresses are refused unless the operator allows private networks. The check is
 * made on every address a name resolves to, and deliveries connect to the address checked.
 */

/** A resolved address and its family, as `dns.lookup` and `net.connect` use them. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

interface Range {
  bytes: readonly number[];
  bits: number;
  name: string;
}

const IPV4_REFUSED: readonly Range[] = [
  { bytes: [0, 0, 0, 0], bits: 8, name: "unspecified (0.0.0.0/8)" },
  { bytes: [10, 0, 0, 0], bits: 8, name: "private (10.0.0.0/8)" },
  { bytes: [100, 64, 0, 0], bits: 10, name: "carrier-grade NAT (100.64.0.0/10)" },
  { bytes: [127, 0, 0, 0], bits: 8, name: "loopback (127.0.0.0/8)" },
  { bytes: [169, 254, 0, 0], bits: 16, name: "link-local (169.254.0.0/16)" },
  { bytes: [172, 16, 0, 0], bits: 12, name: "private (172.16.0.0/12)" },
  { bytes: [192, 0, 0, 0], bits: 24, name: "reserved (192.0.0.0/24)" },
  { bytes: [192, 0, 2, 0], bits: 24, name: "documentation (192.0.2.0/24)" },
  { bytes: [192, 168, 0, 0], bits: 16, name: "private (192.168.0.0/16)" },
  { bytes: [198, 18, 0, 0], bits: 15, name: "benchmarking (198.18.0.0/15)" },
  { bytes: [198, 51, 100, 0], bits: 24, name: "documentation (198.51.100.0/24)" },
  { bytes: [203, 0, 113, 0], bits: 24, name: "documentation (203.0.113.0/24)" },
  { bytes: [224, 0, 0, 0], bits: 4, name: "multicast (224.0.0.0/4)" },
  { bytes: [240, 0, 0, 0], bits: 4, name: "reserved (240.0.0.0/4)" },
];

const IPV6_REFUSED: readonly Range[] = [
  { bytes: [], bits: 128, name: "unspecified (::)" },
  { bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], bits: 128, name: "loopback (::1)" },
  // IPv4-compatible addresses are deprecated; nothing legitimate uses them.
  { bytes: [], bits: 96, name: "IPv4-compatible (::/96)" },
  { bytes: [0xfc], bits: 7, name: "private (fc00::/7)" },
  { bytes: [0xfe, 0x80], bits: 10, name: "link-local (fe80::/10)" },
  { bytes: [0xfe, 0xc0], bits: 10, name: "site-local (fec0::/10)" },
  { bytes: [0xff], bits: 8, name: "multicast (ff00::/8)" },
  { bytes: [0x20, 0x01, 0x0d, 0xb8], bits: 32, name: "documentation (2001:db8::/32)" },
];

/** IPv6 ranges that carry an IPv4 address, and where: the IPv4 address is checked in their place. */
const IPV6_EMBEDDING: ReadonlyArray<Range & { at: number }> = [
  { bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], bits: 96, at: 12, name: "IPv4-mapped" },
  { bytes: [0, 0x64, 0xff, 0x9b], bits: 96, at: 12, name: "NAT64" },
  { bytes: [0x20, 0x02], bits: 16, at: 2, name: "6to4" },
];

function inRange(address: readonly number[], range: Range): boolean {
  for (let bit = 0; bit < range.bits; bit += 8) {
    const remaining = Math.min(8, range.bits - bit);
    const mask = (0xff << (8 - remaining)) & 0xff;
    if (((address[bit / 8] ?? 0) & mask) !== ((range.bytes[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/** The four bytes of a dotted-quad IPv4 address, or undefined. */
export function ipv4Bytes(text: string): number[] | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split(".").map(Number);
}

/** The sixteen bytes of an IPv6 address (zone index ignored), or undefined. */
export function ipv6Bytes(text: string): number[] | undefined {
  const address = text.replace(/%.*$/, "");
  if (isIP(address) !== 6) return undefined;
  let head = address;
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted?.[1]) {
    tail.push(...(ipv4Bytes(dotted[1]) ?? []));
    // Keep a "::" that ends right before the IPv4 part; drop a single separating ":".
    head = address.slice(0, dotted.index + 1);
    if (!head.endsWith("::")) head = head.slice(0, -1);
  }
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const [left = "", right] = head.split("::");
  const leftGroups = groups(left);
  const rightGroups = right === undefined ? [] : groups(right);
  const missing = 8 - tail.length / 2 - leftGroups.length - rightGroups.length;
  const all = [
    ...leftGroups,
    ...new Array<number>(right === undefined ? 0 : missing).fill(0),
    ...rightGroups,
  ];
  const bytes = all.flatMap((group) => [group >> 8, group & 0xff]);
  return [...bytes, ...tail];
}

/**
 * Why `address` (an IP literal) may not receive webhooks, or undefined when it may. Names the
 * range, e.g. "loopback (127.0.0.0/8)".
 */
export function refusedRange(address: string): string | undefined {
  const v4 = ipv4Bytes(address);
  if (v4) return IPV4_REFUSED.find((range) => inRange(v4, range))?.name;
  const v6 = ipv6Bytes(address);
  if (!v6) return "not an IP address";
  for (const range of IPV6_EMBEDDING) {
    if (inRange(v6, range)) {
      const inner = refusedRange(v6.slice(range.at, range.at + 4).join("."));
      return inner ? `${range.name} ${inner}` : undefined;
    }
  }
  return IPV6_REFUSED.find((range) => inRange(v6, range))?.name;
}

/** The answer of {@link resolveDeliveryTarget}: addresses to connect to, or why there are none. */
export type TargetResolution = { addresses: ResolvedAddress[] } | { problem: string };

/**
 * Resolves `hostname` (a name or an IP literal, IPv6 possibly in brackets) and checks every
 * address. Refused when any address is in a refused range (unless `allowPrivateNetworks`), or
 * when the name does not resolve.
 */
export async function resolveDeliveryTarget(
  hostname: string,
  allowPrivateNetworks: boolean,
): Promise<TargetResolution> {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: ResolvedAddress[];
  const family = isIP(host);
  if (family !== 0) {
    addresses = [{ address: host, family: family as 4 | 6 }];
  } else {
    try {
      const found = await lookup(host, { all: true, verbatim: true });
      addresses = found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        problem:
          code === "ENOTFOUND" || code === "ENODATA"
            ? `host ${host} does not resolve`
            : `host ${host} could not be resolved (${code ?? "error"})`,
      };
    }
  }
  if (addresses.length === 0) return { problem: `host ${host} does not resolve` };
  if (!allowPrivateNetworks) {
    for (const { address } of addresses) {
      const range = refusedRange(address);
      if (range) return { problem: `${host} resolves to ${address}, a ${range} address` };
    }
  }
  return { addresses };
}

/** Largest endpoint URL accepted. */
export const MAX_URL_LENGTH = 2048;

/** What {@link checkEndpointUrl} needs from the configuration. */
export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
}

/**
 * Checks an endpoint URL as given by a caller: absolute, HTTPS (or HTTP when allowed), no
 * credentials or fragment, and a host that resolves only to allowed addresses (not resolved when
 * the operator allows private networks). Answers the normalised URL, or the problem in words for a
 * BAD_USER_INPUT.
 */
export async function checkEndpointUrl(
  raw: string,
  policy: UrlPolicy,
): Promise<{ url: string } | { problem: string }> {
  const text = raw.trim();
  if (text.length === 0) return { problem: "must not be empty" };
  if (text.length > MAX_URL_LENGTH) return { problem: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: "is not an absolute URL" };
  }
  const problem = urlShapeProblem(url, policy);
  if (problem) return { problem };
  // With every address allowed there is nothing to check; the name is resolved at each attempt.
  if (policy.allowPrivateNetworks) return { url: url.href };
  const target = await resolveDeliveryTarget(url.hostname, false);
  if ("problem" in target) return { problem: `is not allowed: ${target.problem}` };
  return { url: url.href };
}

/** What is wrong with the shape of `url` for a webhook endpoint, if anything. */
export function urlShapeProblem(url: URL, policy: Pick<UrlPolicy, "allowHttp">): string | undefined {
  if (url.protocol !== "https:" && !(policy.allowHttp && url.protocol === "http:")) {
    return policy.allowHttp ? "must use https:// or http://" : "must use https://";
  }
  if (url.username !== "" || url.password !== "") return "must not contain a user name or password";
  if (url.hash !== "") return "must not contain a fragment (#...)";
  if (url.hostname === "") return "must name a host";
  return undefined;
}
