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

test("internal IPv4 ranges are refused and public addresses allowed", () => {
  const refused: Array<[string, RegExp]> = [
    ["0.0.0.0", /unspecified/],
    ["0.1.2.3", /unspecified/],
    ["10.0.0.1", /private \(10/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["100.127.255.255", /carrier-grade NAT/],
    ["127.0.0.1", /loopback/],
    ["127.255.255.254", /loopback/],
    ["169.254.169.254", /link-local/],
    ["172.16.0.1", /private \(172/],
    ["172.31.255.255", /private \(172/],
    ["192.168.0.1", /private \(192\.168/],
    ["192.0.0.8", /reserved/],
    ["198.18.0.1", /benchmarking/],
    ["224.0.0.251", /multicast/],
    ["239.255.255.250", /multicast/],
    ["240.0.0.1", /reserved/],
    ["255.255.255.255", /reserved/],
  ];
  for (const [address, reason] of refused) assert.match(refusedRange(address) ?? "", reason, address);
  for (const address of [
    "8.8.8.8",
    "1.1.1.1",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "93.184.216.34",
  ]) {
    assert.equal(refusedRange(address), undefined, address);
  }
});

test("internal IPv6 ranges are refused, and addresses that embed an IPv4 one are judged by it", () => {
  const refused: Array<[string, RegExp]> = [
    ["::", /unspecified/],
    ["::1", /loopback/],
    ["::10.0.0.1", /IPv4-compatible/],
    ["fc00::1", /private/],
    ["fdff:ffff::1", /private/],
    ["fe80::1", /link-local/],
    ["febf::1", /link-local/],
    ["fec0::1", /site-local/],
    ["ff02::1", /multicast/],
    ["2001:db8::1", /documentation/],
    ["::ffff:127.0.0.1", /IPv4-mapped loopback/],
    ["::ffff:a9fe:a9fe", /IPv4-mapped link-local/],
    ["::ffff:10.1.2.3", /IPv4-mapped private/],
    ["64:ff9b::7f00:1", /NAT64 loopback/],
    ["2002:c0a8:0101::1", /6to4 private/],
  ];
  for (const [address, reason] of refused) assert.match(refusedRange(address) ?? "", reason, address);
  for (const address of ["2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:0808:0808::1"]) {
    assert.equal(refusedRange(address), undefined, address);
  }
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
