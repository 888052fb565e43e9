// test-runner: execution-mode independent
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { encodeGlobalId } from "./global-id.ts";
import { keyOfId } from "./mutations.ts";

describe("keyOfId", () => {
  test("answers the key of an id of the expected type", () => {
    assert.equal(
      keyOfId(encodeGlobalId("Repository", "abc123def0"), "Repository", "repositoryId"),
      "abc123def0",
    );
  });

  test("refuses an id of another type, naming the field and both types", () => {
    assert.throws(
      () => keyOfId(encodeGlobalId("Account", "abc123def0"), "Repository", "repositoryId"),
      (error: Error & { extensions?: Record<string, unknown> }) =>
        error.message === "repositoryId must be the id of a Repository, not of an Account." &&
        error.extensions?.code === "BAD_USER_INPUT" &&
        error.extensions?.field === "repositoryId",
    );
  });

  test("refuses a string that is no id at all", () => {
    assert.throws(
      () => keyOfId("not an id", "Repository", "id"),
      (error: Error & { extensions?: Record<string, unknown> }) =>
        error.message === "id is not a valid id." && error.extensions?.field === "id",
    );
  });
});
