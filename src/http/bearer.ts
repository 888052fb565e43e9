/**
 * The `Authorization` header, which the HTTP layer reads; what the credential in it is worth is
 * the auth module's to say.
 */

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token. The scheme is case-insensitive per
// RFC 9110 §11.1. The b64token charset rules out a second credential ("a b", "a, Basic b").
const BEARER_PATTERN = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Extracts the credential from an `Authorization` header value, or null when the header is
 * missing or is not a single Bearer credential. Surrounding whitespace is ignored and one or more
 * spaces may separate scheme and token (RFC 6750's `1*SP`), so `"Bearer  x "` gives `"x"`. Only
 * the shape of the header is checked here; whether the token is one of ours is
 * the authenticator's job (src/modules/auth/credential-service.ts).
 */
export function parseBearer(header: string | undefined): string | null {
  if (typeof header !== "string") return null;
  const match = BEARER_PATTERN.exec(header.trim());
  return match?.[1] ?? null;
}
