import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse } from "graphql";
import {
  isUnstorableText,
  withoutEchoedLiteral,
  withoutEchoedToken,
  withoutEchoedValue,
  withoutEchoedVariable,
} from "./variables.ts";

describe("isUnstorableText", () => {
  test("a NUL and unpaired surrogates cannot be stored; paired ones and plain text can", () => {
    assert.equal(isUnstorableText("a\u0000b"), true);
    assert.equal(isUnstorableText("a\ud800"), true);
    assert.equal(isUnstorableText("\udc00a"), true);
    assert.equal(isUnstorableText("\ude00\ud83d"), true);
    assert.equal(isUnstorableText("smile \ud83d\ude00"), false);
    assert.equal(isUnstorableText("plain"), false);
  });
});

describe("withoutEchoedValue", () => {
  test("drops the value graphql-js and our scalars quote at the end of a reason", () => {
    assert.equal(
      withoutEchoedValue('String cannot represent a non string value: { token: "secret" }'),
      "String cannot represent a non string value.",
    );
    assert.equal(withoutEchoedValue("ID cannot represent value: [secret]"), "ID cannot represent value.");
    assert.equal(
      withoutEchoedValue('Expected type "UUID". UUID must be a canonical UUID, got "secret"'),
      'Expected type "UUID". UUID must be a canonical UUID.',
    );
    assert.equal(
      withoutEchoedValue('Value "secret" does not exist in "Severity" enum.'),
      'The value does not exist in "Severity" enum.',
    );
  });

  test("leaves reasons that quote no value as they are", () => {
    const reason = 'Field "analyzer" of required type "String!" was not provided.';
    assert.equal(withoutEchoedValue(reason), reason);
  });
});

describe("withoutEchoedVariable", () => {
  test("cuts an engine's variable message before the value it quotes", () => {
    assert.equal(
      withoutEchoedVariable('Variable "$input" got invalid value { accessToken: "secret" }; Expected type'),
      'Variable "$input" got invalid value.',
    );
    assert.equal(withoutEchoedVariable('Unknown operation named "x".'), 'Unknown operation named "x".');
  });
});

describe("withoutEchoedLiteral", () => {
  test("a literal of the wrong type is named by its type, never quoted", () => {
    assert.equal(
      withoutEchoedLiteral('Expected value of type "ArtifactMetadataInput", found "dsn-secret-0123".'),
      'Expected value of type "ArtifactMetadataInput".',
    );
    assert.equal(
      withoutEchoedLiteral('Int cannot represent non-integer value: "report text"'),
      "Int cannot represent non-integer value.",
    );
    assert.equal(
      withoutEchoedLiteral('Field "x" is not defined by type "Input".'),
      'Field "x" is not defined by type "Input".',
    );
  });
});

describe("withoutEchoedToken", () => {
  test("graphql-js' syntax errors lose the token they quote and keep the rest", () => {
    const messageOf = (source: string) => {
      try {
        parse(source);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    };
    const quoted = messageOf('{ a(input: { "secret-value-0123" }) }');
    assert.match(quoted, /secret-value-0123/, "graphql-js quotes the token (else this test shows nothing)");
    assert.equal(withoutEchoedToken(quoted), "Syntax Error: Expected Name, found String.");
    assert.equal(withoutEchoedToken(messageOf("{ a } secretname0123")), "Syntax Error: Unexpected Name.");
    assert.equal(
      withoutEchoedToken("Syntax Error: Unterminated string."),
      "Syntax Error: Unterminated string.",
    );
  });
});
