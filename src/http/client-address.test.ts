import assert from "node:assert/strict";
import { test } from "node:test";
import { rateLimitKeyOfAddress } from "./client-address.ts";

test("IPv4 addresses are counted one by one", () => {
  assert.equal(rateLimitKeyOfAddress("192.0.2.1"), "192.0.2.1");
  assert.notEqual(rateLimitKeyOfAddress("192.0.2.1"), rateLimitKeyOfAddress("192.0.2.2"));
});

test("IPv6 addresses in one /64 share one key, whatever their notation", () => {
  const key = rateLimitKeyOfAddress("2001:db8:85a3:42::1");
  assert.equal(key, "2001:db8:85a3:42::/64");
  assert.equal(rateLimitKeyOfAddress("2001:0db8:85a3:0042:ffff:ffff:ffff:ffff"), key);
  assert.equal(rateLimitKeyOfAddress("2001:db8:85a3:42:abcd::7%eth0"), key);
  assert.notEqual(rateLimitKeyOfAddress("2001:db8:85a3:43::1"), key);
});

test("loopback and IPv4-mapped addresses get sensible keys", () => {
  assert.equal(rateLimitKeyOfAddress("::1"), "0:0:0:0::/64");
  assert.equal(rateLimitKeyOfAddress("::ffff:198.51.100.7"), "198.51.100.7");
});
