// Verifies a webhook delivery from Assay. Node 18 or later, no dependencies.
import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a delivery's timestamp may be from this machine's clock, in seconds. */
export const TOLERANCE_SECONDS = 300;

/**
 * Checks one delivery and answers its envelope ({ id, type, createdAt, data }), or throws.
 * `rawBody`: the request body exactly as received (Buffer or string), before any JSON parsing.
 * `headers`: the request headers with lower-case names, as node:http gives them.
 * `secret`: the endpoint's secret.
 */
export function verifyWebhook(rawBody, headers, secret, nowMs = Date.now()) {
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody;
  const timestamp = headers["x-assay-timestamp"];
  if (typeof timestamp !== "string" || !/^\d+$/.test(timestamp)) {
    throw new Error("missing or malformed x-assay-timestamp");
  }
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw new Error("x-assay-timestamp is too far from now (a replay?)");
  }
  const signed = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex");
  if (!equalInConstantTime(headers["x-assay-signature"], `v1=${signed}`)) {
    throw new Error("x-assay-signature does not match");
  }
  const event = JSON.parse(body.toString("utf8"));
  if (event.id !== headers["x-assay-delivery"]) {
    throw new Error("x-assay-delivery does not match the envelope's id");
  }
  return event;
}

/** Receivers written for DeepSource check this header: HMAC-SHA256 of the body alone. */
export function verifyDeepSourceSignature(rawBody, headers, secret) {
  const expected = createHmac("sha256", secret).update(rawBody).digest("hex");
  return equalInConstantTime(headers["x-deepsource-signature"], expected);
}

function equalInConstantTime(received, expected) {
  if (typeof received !== "string") return false;
  const a = Buffer.from(received, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
