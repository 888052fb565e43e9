import type { TracingSetting } from "../config.ts";

/**
 * Opt-in OpenTelemetry tracing (docs/observability.md "Tracing"): one span per GraphQL request,
 * one per SQL statement, one per job run. This file imports nothing of OpenTelemetry: the SDK is
 * loaded by {@link startTracing} with a dynamic import only when the configuration turns tracing
 * on, so with it off not one of its modules is read and the code paths see `undefined`.
 */

/** Attribute values a span takes. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** The span a piece of work runs in: it can be renamed, annotated, and marked failed. */
export interface SpanHandle {
  setName(name: string): void;
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span as an error with `message` (never a secret: it is exported). */
  fail(message: string): void;
}

/** A started tracer. */
export interface Tracing {
  /** Runs `work` in a new span (a child of the active one); the span ends when `work` settles. */
  inSpan<T>(name: string, attributes: SpanAttributes, work: (span: SpanHandle) => Promise<T>): Promise<T>;
  /** Records a finished SQL statement as a span under the active one, back-dated by its duration. */
  recordStatement(sql: string, durationMs: number, failed: boolean): void;
  /** Exports the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

/** The tracer `setting` asks for, with the SDK loaded now; undefined (nothing loaded) when off. */
export async function startTracing(setting: TracingSetting | undefined): Promise<Tracing | undefined> {
  if (!setting) return undefined;
  const { createOpenTelemetryTracing } = await import("./tracing-sdk.ts");
  return createOpenTelemetryTracing(setting);
}
