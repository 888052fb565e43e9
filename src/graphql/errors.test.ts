import assert from "node:assert/strict";
import { test } from "node:test";
import { AssayError, ErrorCode, errorDocument, rateLimitedDocument } from "./errors.ts";

test("a 429's document prints byte for byte as the AssayError it stands for", () => {
  for (const seconds of [1, 59, 3600]) {
    const error = new AssayError(
      `Rate limit exceeded. Try again in ${seconds} seconds.`,
      ErrorCode.RATE_LIMITED,
      {
        extensions: { retryAfter: seconds },
      },
    );
    assert.equal(JSON.stringify(rateLimitedDocument(seconds)), JSON.stringify(errorDocument(error)));
  }
});
