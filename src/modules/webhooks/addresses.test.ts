import assert from "node:assert/strict";
import { test } from "node:test";
import { checkEndpointUrl, ipv6Bytes, refusedRange, resolveDeliveryTarget } from "./addresses.ts";

test("IPv6 text is read into sixteen bytes, with :: and an IPv4 tail", () => {
  assert.deepEqual(ipv6Bytes("::1"), [...new Array(15).fill(0), 1]);
  assert.deepEqual(ipv6Bytes("::"), new Array(16).fill(0));
  assert.deepEqual(ipv6Bytes("::ffff:127.0.0.1"), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]);
  assert.deepEqual(ipv6Bytes("::ffff:7f00:1"), ipv6Bytes("::ffff:127.0.0.1"));
  assert.deepEqual(
    ipv6Bytes("2001:db8::8:800:200c:417a"),
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0x08, 0x08, 0, 0x20, 0x0c, 0x41, 0x7a],
  );
  assert.deepEqual(ipv6Bytes("1:2:3:4:5:6:1.2.3.4"), [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 1, 2, 3, 4]);
  assert.deepEqual(ipv6Bytes("fe80::1%eth0")?.slice(0, 2), [0xfe, 0x80]);
  assert.equal(ipv6Bytes("127.0.0.1"), undefined);
  assert.equal(ipv6Bytes("not an address"), undefined);
});

/** Each refused block: its first and last address, the addresses just outside it, and its name. */
const IPV4_EDGES: Array<{ first: string; last: string; outside: string[]; name: RegExp }> = [
  { first: "0.0.0.0", last: "0.255.255.255", outside: ["1.0.0.0"], name: /unspecified/ },
  { first: "10.0.0.0", last: "10.255.255.255", outside: ["9.255.255.255", "11.0.0.0"], name: /private \(10/ },
  {
    first: "100.64.0.0",
    last: "100.127.255.255",
    outside: ["100.63.255.255", "100.128.0.0"],
    name: /carrier-grade NAT/,
  },
  {
    first: "127.0.0.0",
    last: "127.255.255.255",
    outside: ["126.255.255.255", "128.0.0.0"],
    name: /loopback/,
  },
  {
    first: "169.254.0.0",
    last: "169.254.255.255",
    outside: ["169.253.255.255", "169.255.0.0"],
    name: /link-local/,
  },
  {
    first: "172.16.0.0",
    last: "172.31.255.255",
    outside: ["172.15.255.255", "172.32.0.0"],
    name: /private \(172/,
  },
  {
    first: "192.0.0.0",
    last: "192.0.0.255",
    outside: ["191.255.255.255", "192.0.1.0"],
    name: /IETF protocol/,
  },
  { first: "192.0.2.0", last: "192.0.2.255", outside: ["192.0.1.255", "192.0.3.0"], name: /documentation/ },
  {
    first: "192.88.99.0",
    last: "192.88.99.255",
    outside: ["192.88.98.255", "192.88.100.0"],
    name: /6to4 relay/,
  },
  {
    first: "192.168.0.0",
    last: "192.168.255.255",
    outside: ["192.167.255.255", "192.169.0.0"],
    name: /private \(192\.168/,
  },
  {
    first: "198.18.0.0",
    last: "198.19.255.255",
    outside: ["198.17.255.255", "198.20.0.0"],
    name: /benchmarking/,
  },
  {
    first: "198.51.100.0",
    last: "198.51.100.255",
    outside: ["198.51.99.255", "198.51.101.0"],
    name: /documentation/,
  },
  {
    first: "203.0.113.0",
    last: "203.0.113.255",
    outside: ["203.0.112.255", "203.0.114.0"],
    name: /documentation/,
  },
  { first: "224.0.0.0", last: "239.255.255.255", outside: ["223.255.255.255"], name: /multicast/ },
  { first: "240.0.0.0", last: "255.255.255.254", outside: [], name: /reserved \(240/ },
  { first: "255.255.255.255", last: "255.255.255.255", outside: [], name: /limited broadcast/ },
];

const IPV6_EDGES: Array<{ first: string; last: string; outside: string[]; name: RegExp }> = [
  { first: "::", last: "::", outside: [], name: /unspecified/ },
  { first: "::1", last: "::1", outside: [], name: /loopback/ },
  { first: "::2", last: "::ffff:ffff", outside: ["0:0:0:0:0:1::"], name: /IPv4-compatible/ },
  {
    first: "64:ff9b:1::",
    last: "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
    outside: ["64:ff9b:0:ffff::1", "64:ff9b:2::"],
    name: /local-use NAT64/,
  },
  {
    first: "100::",
    last: "100::ffff:ffff:ffff:ffff",
    outside: ["ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    name: /discard-only/,
  },
  {
    first: "100:0:0:1::",
    last: "100:0:0:1:ffff:ffff:ffff:ffff",
    outside: ["100:0:0:2::"],
    name: /dummy prefix/,
  },
  {
    first: "2001::",
    last: "2001:0:ffff:ffff:ffff:ffff:ffff:ffff",
    outside: ["2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    name: /Teredo/,
  },
  {
    first: "2001:1::",
    last: "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
    outside: ["2001:200::"],
    name: /IETF protocol/,
  },
  {
    first: "2001:db8::",
    last: "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
    outside: ["2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::"],
    name: /documentation/,
  },
  {
    first: "3fff::",
    last: "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
    outside: ["3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff:1000::"],
    name: /documentation/,
  },
  {
    first: "5f00::",
    last: "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    outside: ["5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "5f01::"],
    name: /segment routing/,
  },
  {
    first: "fc00::",
    last: "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    outside: ["fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    name: /private/,
  },
  { first: "fe80::", last: "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", outside: [], name: /link-local/ },
  { first: "fec0::", last: "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", outside: [], name: /site-local/ },
  { first: "ff00::", last: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", outside: [], name: /multicast/ },
];

for (const [family, edges] of [
  ["IPv4", IPV4_EDGES],
  ["IPv6", IPV6_EDGES],
] as const) {
  test(`every special-purpose ${family} block is refused from its first to its last address, and not beyond`, () => {
    for (const { first, last, outside, name } of edges) {
      assert.match(refusedRange(first) ?? "", name, first);
      assert.match(refusedRange(last) ?? "", name, last);
      for (const address of outside) assert.equal(refusedRange(address), undefined, address);
    }
  });
}

test("the unicast space between fc00::/7 and fe80::/10 is not refused by mistake", () => {
  for (const address of ["fe00::", "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]) {
    assert.equal(refusedRange(address), undefined, address);
  }
});

test("public addresses of both families are allowed", () => {
  for (const address of [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "2606:4700:4700::1111",
    "2001:200::1",
    "2620:fe::fe",
    "2a00:1450:4001:80b::200e",
  ]) {
    assert.equal(refusedRange(address), undefined, address);
  }
});

test("IPv6 addresses that carry an IPv4 address are judged by it", () => {
  const refused: Array<[string, RegExp]> = [
    ["::ffff:127.0.0.1", /^IPv4-mapped loopback/],
    ["::ffff:7f00:1", /^IPv4-mapped loopback/],
    ["::ffff:a9fe:a9fe", /^IPv4-mapped link-local/],
    ["::ffff:10.1.2.3", /^IPv4-mapped private/],
    ["::ffff:0.0.0.0", /^IPv4-mapped unspecified/],
    ["64:ff9b::7f00:1", /^NAT64 loopback/],
    ["64:ff9b::192.168.1.1", /^NAT64 private/],
    ["2002:c0a8:0101::1", /^6to4 private/],
    ["2002:7f00:1::", /^6to4 loopback/],
    ["2002:a9fe:a9fe:ffff:ffff:ffff:ffff:ffff", /^6to4 link-local/],
  ];
  for (const [address, reason] of refused) assert.match(refusedRange(address) ?? "", reason, address);
  for (const address of ["::ffff:8.8.8.8", "64:ff9b::808:808", "64:ff9b::8.8.4.4", "2002:0808:0808::1"]) {
    assert.equal(refusedRange(address), undefined, address);
  }
});

test("a zone index does not hide a link-local address, and text that is no address is refused", () => {
  assert.match(refusedRange("fe80::1%eth0") ?? "", /link-local/);
  assert.equal(refusedRange("not an address"), "not an IP address");
  assert.equal(refusedRange("127.1"), "not an IP address");
});

test("a name is refused when it resolves to a refused address, unless private networks are allowed", async () => {
  const refused = await resolveDeliveryTarget("localhost", false);
  assert.ok("problem" in refused);
  assert.match(refused.problem, /^localhost resolves to (127\.0\.0\.1|::1), a loopback/);
  const allowed = await resolveDeliveryTarget("localhost", true);
  assert.ok("addresses" in allowed && allowed.addresses.length > 0);
  const literal = await resolveDeliveryTarget("[::1]", true);
  assert.deepEqual(literal, { addresses: [{ address: "::1", family: 6 }] });
  const unknown = await resolveDeliveryTarget("no-such-host.invalid", false);
  assert.ok("problem" in unknown);
  assert.match(unknown.problem, /does not resolve|could not be resolved/);
});

test("endpoint URLs must be absolute https without credentials or fragment, http only when allowed", async () => {
  const strict = { allowHttp: false, allowPrivateNetworks: false };
  const open = { allowHttp: true, allowPrivateNetworks: true };
  const problem = async (url: string, policy = strict) => {
    const result = await checkEndpointUrl(url, policy);
    return "problem" in result ? result.problem : undefined;
  };
  assert.equal(await problem(""), "must not be empty");
  assert.equal(await problem("/relative"), "is not an absolute URL");
  assert.equal(await problem("http://hooks.example.com/"), "must use https://");
  assert.equal(await problem("ftp://hooks.example.com/", open), "must use https:// or http://");
  assert.equal(await problem("https://u:p@hooks.example.com/"), "must not contain a user name or password");
  assert.equal(await problem("https://hooks.example.com/#x"), "must not contain a fragment (#...)");
  assert.match((await problem(`https://a.example.com/${"x".repeat(2050)}`)) ?? "", /at most 2048/);
  assert.match(
    (await problem("https://127.0.0.1/")) ?? "",
    /^is not allowed: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback/,
  );
  assert.deepEqual(await checkEndpointUrl("  http://127.0.0.1:8080/hooks?a=1 ", open), {
    url: "http://127.0.0.1:8080/hooks?a=1",
  });
  assert.deepEqual(await checkEndpointUrl("https://[::1]/x", open), { url: "https://[::1]/x" });
});
