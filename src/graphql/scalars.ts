import { Kind, type ValueNode } from "graphql";
import { builder } from "./builder.ts";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

function literalString(node: ValueNode, scalar: string): string {
  if (node.kind !== Kind.STRING) throw new TypeError(`${scalar} must be given as a string`);
  return node.value;
}

/** True when `ymd` (YYYY-MM-DD) names a day of the calendar: not 2024-02-30, which Date rolls over. */
function isCalendarDate(ymd: string): boolean {
  const [year, month, day] = ymd.split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function toIsoDateTime(value: unknown): string {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new TypeError("DateTime cannot represent an invalid date");
  return date.toISOString();
}

function parseDateTime(value: string): Date {
  const date = new Date(value);
  if (
    !/^\d{4}-\d{2}-\d{2}T/.test(value) ||
    Number.isNaN(date.getTime()) ||
    !isCalendarDate(value.slice(0, 10))
  ) {
    throw new TypeError(`DateTime must be an ISO-8601 date and time, got "${value}"`);
  }
  return date;
}

function parseUuid(value: string): string {
  if (!UUID_PATTERN.test(value)) throw new TypeError(`UUID must be a canonical UUID, got "${value}"`);
  return value.toLowerCase();
}

function parseDate(value: string): string {
  if (!DATE_PATTERN.test(value) || !isCalendarDate(value)) {
    throw new TypeError(`Date must be YYYY-MM-DD, got "${value}"`);
  }
  return value;
}

function literalJson(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map(literalJson);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literalJson(f.value)]));
    default:
      throw new TypeError("Variables inside JSON literals are not supported");
  }
}

builder.scalarType("DateTime", {
  description: "An instant, as an ISO-8601 string in UTC with milliseconds, e.g. 2026-03-15T10:30:00.000Z.",
  serialize: toIsoDateTime,
  parseValue: (value) => parseDateTime(String(value)),
  parseLiteral: (node) => parseDateTime(literalString(node, "DateTime")),
});

builder.scalarType("Date", {
  description: "A calendar date, YYYY-MM-DD.",
  serialize: (value) => String(value),
  parseValue: (value) => parseDate(String(value)),
  parseLiteral: (node) => parseDate(literalString(node, "Date")),
});

builder.scalarType("UUID", {
  description: "A UUID in its canonical 8-4-4-4-12 hexadecimal form.",
  serialize: (value) => String(value),
  parseValue: (value) => parseUuid(String(value)),
  parseLiteral: (node) => parseUuid(literalString(node, "UUID")),
});

builder.scalarType("JSON", {
  description: "Any JSON value, sent as JSON.",
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literalJson,
});

builder.scalarType("JSONString", {
  description: "A JSON value serialised into a string.",
  serialize: (value) => (typeof value === "string" ? value : JSON.stringify(value)),
  parseValue: (value) => String(value),
  parseLiteral: (node) => literalString(node, "JSONString"),
});

builder.scalarType("GenericScalar", {
  description: "Any JSON value: string, number, boolean, list or object.",
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literalJson,
});
