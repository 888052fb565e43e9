import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

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

/** One refused block of addresses: its network, prefix length, and what it is called. */
interface Block {
  network: string;
  prefix: number;
  name: string;
}

/**
 * IPv4 blocks refused: every entry of the IANA IPv4 Special-Purpose Address Registry that is not
 * globally reachable (RFC 6890 and its updates), the deprecated 6to4 relay anycast block
 * (RFC 7526), multicast (RFC 5771) and limited broadcast. The registry's globally reachable
 * entries (AS112, AMT, 192.0.0.9/32 and 192.0.0.10/32) sit inside blocks refused here or are
 * public service addresses no webhook receiver uses. A more specific block comes before the one
 * that contains it, so the match is named by it.
 */
const IPV4_REFUSED: readonly Block[] = [
  { network: "0.0.0.0", prefix: 8, name: "unspecified (0.0.0.0/8)" },
  { network: "10.0.0.0", prefix: 8, name: "private (10.0.0.0/8)" },
  { network: "100.64.0.0", prefix: 10, name: "carrier-grade NAT (100.64.0.0/10)" },
  { network: "127.0.0.0", prefix: 8, name: "loopback (127.0.0.0/8)" },
  { network: "169.254.0.0", prefix: 16, name: "link-local (169.254.0.0/16)" },
  { network: "172.16.0.0", prefix: 12, name: "private (172.16.0.0/12)" },
  { network: "192.0.0.0", prefix: 24, name: "IETF protocol assignments (192.0.0.0/24)" },
  { network: "192.0.2.0", prefix: 24, name: "documentation (192.0.2.0/24)" },
  { network: "192.88.99.0", prefix: 24, name: "6to4 relay anycast (192.88.99.0/24)" },
  { network: "192.168.0.0", prefix: 16, name: "private (192.168.0.0/16)" },
  { network: "198.18.0.0", prefix: 15, name: "benchmarking (198.18.0.0/15)" },
  { network: "198.51.100.0", prefix: 24, name: "documentation (198.51.100.0/24)" },
  { network: "203.0.113.0", prefix: 24, name: "documentation (203.0.113.0/24)" },
  { network: "224.0.0.0", prefix: 4, name: "multicast (224.0.0.0/4)" },
  { network: "255.255.255.255", prefix: 32, name: "limited broadcast (255.255.255.255/32)" },
  { network: "240.0.0.0", prefix: 4, name: "reserved (240.0.0.0/4)" },
];

/**
 * IPv6 blocks refused: every entry of the IANA IPv6 Special-Purpose Address Registry that is not
 * globally reachable, plus deprecated site-local and multicast. The whole of 2001::/23 (IETF
 * protocol assignments) is refused, Teredo (2001::/32) included: a Teredo address reaches
 * whatever its relay and the embedded client address say, which cannot be checked here. The
 * local-use NAT64 prefix (RFC 8215) is refused outright, since where it carries the IPv4 address
 * depends on the operator's prefix length. The blocks that carry a checkable IPv4 address are
 * in {@link IPV6_EMBEDDING} and are judged by that address instead.
 */
const IPV6_REFUSED: readonly Block[] = [
  { network: "::", prefix: 128, name: "unspecified (::/128)" },
  { network: "::1", prefix: 128, name: "loopback (::1/128)" },
  // IPv4-compatible addresses (::/96) are deprecated (RFC 4291); nothing legitimate uses them.
  { network: "::", prefix: 96, name: "IPv4-compatible (::/96)" },
  { network: "64:ff9b:1::", prefix: 48, name: "local-use NAT64 (64:ff9b:1::/48)" },
  { network: "100::", prefix: 64, name: "discard-only (100::/64)" },
  { network: "100:0:0:1::", prefix: 64, name: "dummy prefix (100:0:0:1::/64)" },
  { network: "2001::", prefix: 32, name: "Teredo (2001::/32)" },
  { network: "2001::", prefix: 23, name: "IETF protocol assignments (2001::/23)" },
  { network: "2001:db8::", prefix: 32, name: "documentation (2001:db8::/32)" },
  { network: "3fff::", prefix: 20, name: "documentation (3fff::/20)" },
  { network: "5f00::", prefix: 16, name: "segment routing (5f00::/16)" },
  { network: "fc00::", prefix: 7, name: "private (fc00::/7)" },
  { network: "fe80::", prefix: 10, name: "link-local (fe80::/10)" },
  { network: "fec0::", prefix: 10, name: "site-local (fec0::/10)" },
  { network: "ff00::", prefix: 8, name: "multicast (ff00::/8)" },
];

/** IPv6 blocks that carry an IPv4 address, and at which byte: that IPv4 address is checked instead. */
const IPV6_EMBEDDING: ReadonlyArray<Block & { at: number }> = [
  { network: "::ffff:0:0", prefix: 96, at: 12, name: "IPv4-mapped" },
  { network: "64:ff9b::", prefix: 96, at: 12, name: "NAT64" },
  { network: "2002::", prefix: 16, at: 2, name: "6to4" },
];

/** A block paired with a `BlockList` holding only it, so a match can be named. */
interface NamedList<T extends Block> {
  block: T;
  list: BlockList;
}

function namedLists<T extends Block>(blocks: readonly T[], type: "ipv4" | "ipv6"): Array<NamedList<T>> {
  return blocks.map((block) => {
    const list = new BlockList();
    list.addSubnet(block.network, block.prefix, type);
    return { block, list };
  });
}

const IPV4_LISTS = namedLists(IPV4_REFUSED, "ipv4");
const IPV6_LISTS = namedLists(IPV6_REFUSED, "ipv6");
const EMBEDDING_LISTS = namedLists(IPV6_EMBEDDING, "ipv6");

/** The first block whose list holds `address`. */
function findBlock<T extends Block>(lists: Array<NamedList<T>>, address: string, type: "ipv4" | "ipv6") {
  return lists.find(({ list }) => list.check(address, type))?.block;
}

/** The four bytes of a dotted-quad IPv4 address, or undefined. */
export function ipv4Bytes(text: string): number[] | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split(".").map(Number);
}

/** The sixteen bytes of an IPv6 address (zone index ignored), or undefined. */
export function ipv6Bytes(text: string): number[] | undefined {
  const address = withoutZone(text);
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

/** `text` without an IPv6 zone index ("fe80::1%eth0" → "fe80::1"); `BlockList` matches no zoned address. */
function withoutZone(text: string): string {
  return text.replace(/%.*$/, "");
}

/**
 * Why `address` (an IP literal) may not receive webhooks, or undefined when it may. Names the
 * range, e.g. "loopback (127.0.0.0/8)"; an IPv6 address that carries an IPv4 one is judged by
 * it ("NAT64 loopback (127.0.0.0/8)").
 */
export function refusedRange(address: string): string | undefined {
  if (isIP(address) === 4) return findBlock(IPV4_LISTS, address, "ipv4")?.name;
  const v6 = withoutZone(address);
  const bytes = ipv6Bytes(v6);
  if (!bytes) return "not an IP address";
  const embedding = findBlock(EMBEDDING_LISTS, v6, "ipv6");
  if (embedding) {
    const inner = refusedRange(bytes.slice(embedding.at, embedding.at + 4).join("."));
    return inner ? `${embedding.name} ${inner}` : undefined;
  }
  return findBlock(IPV6_LISTS, v6, "ipv6")?.name;
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
