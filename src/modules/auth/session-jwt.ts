import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Session access tokens: compact JWTs (RFC 7519) signed with HMAC-SHA256 (JWS "HS256", RFC 7515)
 * under the server's session secret. Pure functions over node:crypto; no JWT library, since one
 * fixed algorithm and one fixed claim set need about a hundred lines, and accepting exactly one
 * algorithm rules out the classic `alg` confusion attacks (RFC 8725 §2.1, §3.1).
 */

/** The claims of every access token Assay signs. */
export interface SessionClaims {
  /** The user's global id (`User:<key>` in base64). */
  sub: string;
  /** The user's e-mail address when the token was issued. */
  email: string;
  /** The session (refresh-token family) the token belongs to; revoking it ends the token. */
  sid: string;
  /** Issued at, in Unix seconds. */
  iat: number;
  /** Expires at, in Unix seconds; the token is refused from this second on. */
  exp: number;
  /** A random id of this token. */
  jti: string;
}

/** Why a token is refused: not a JWT of ours, signed with another key, or past its `exp`. */
export type JwtRefusal = "malformed" | "bad-signature" | "expired";

// The one header we sign with, and so the only one we accept (compared after parsing, so key
// order and whitespace in someone else's encoder would not matter, but `alg` always does).
const HEADER = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
const PART = /^[A-Za-z0-9_-]+$/;
const MAX_LENGTH = 4096;

/** True when `credential` has a JWT's shape (three base64url parts), so it is not a PAT. */
export function looksLikeJwt(credential: string): boolean {
  const parts = credential.split(".");
  return parts.length === 3 && parts.every((part) => PART.test(part));
}

/** Signs `claims` with `secret` and answers the compact serialisation `header.payload.signature`. */
export function signSessionJwt(claims: SessionClaims, secret: string): string {
  const signingInput = `${HEADER}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${signatureOf(signingInput, secret)}`;
}

/**
 * The claims of `token` when its header is exactly HS256, its signature matches under `secret`
 * (compared in constant time) and `nowSeconds` is before its `exp`; otherwise why not. The
 * signature is checked before the claims are read, so a forged token is "bad-signature" whatever
 * its payload says. Never throws.
 */
export function verifySessionJwt(
  token: unknown,
  secret: string,
  nowSeconds: number,
): SessionClaims | JwtRefusal {
  if (typeof token !== "string" || token.length > MAX_LENGTH || !looksLikeJwt(token)) return "malformed";
  const [header = "", payload = "", signature = ""] = token.split(".");
  const parsedHeader = parseJson(header);
  if (parsedHeader?.alg !== "HS256" || (parsedHeader.typ !== undefined && parsedHeader.typ !== "JWT")) {
    return "malformed";
  }
  if (Object.keys(parsedHeader).some((name) => name !== "alg" && name !== "typ")) return "malformed";
  const expected = Buffer.from(signatureOf(`${header}.${payload}`, secret));
  const given = Buffer.from(signature);
  // Comparing the base64url text, not decoded bytes: decoding is lenient about the last
  // character's spare bits, which would let several spellings of one signature pass.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "bad-signature";
  const claims = asClaims(parseJson(payload));
  if (!claims) return "malformed";
  return nowSeconds >= claims.exp ? "expired" : claims;
}

function signatureOf(signingInput: string, secret: string): string {
  if (secret.length === 0) throw new TypeError("the session secret must not be empty");
  return createHmac("sha256", secret).update(signingInput, "utf8").digest("base64url");
}

function base64url(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}

function parseJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function asClaims(value: Record<string, unknown> | undefined): SessionClaims | undefined {
  if (!value) return undefined;
  const { sub, email, sid, iat, exp, jti } = value;
  if (typeof sub !== "string" || typeof email !== "string" || typeof sid !== "string") return undefined;
  if (typeof jti !== "string" || !Number.isSafeInteger(iat) || !Number.isSafeInteger(exp)) return undefined;
  return { sub, email, sid, iat: iat as number, exp: exp as number, jti };
}
