import { context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { TracingSetting } from "../config.ts";
import type { SpanHandle, Tracing } from "./tracing.ts";

/**
 * The OpenTelemetry side of src/observability/tracing.ts, imported only when tracing is on: a
 * Node tracer provider (AsyncLocalStorage context, so SQL spans nest under the request or job
 * that ran them), a batch processor, and the OTLP/HTTP or console exporter.
 */

/** Statement text kept on a span: enough to recognise it; parameters are never included. */
const MAX_STATEMENT_CHARS = 2000;

function handleOf(span: Span): SpanHandle {
  return {
    setName: (name) => span.updateName(name),
    setAttributes: (attributes) => span.setAttributes(attributes),
    fail: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
  };
}

/** Starts the SDK for `setting`. */
export function createOpenTelemetryTracing(setting: TracingSetting): Tracing {
  const exporter =
    setting.exporter === "console"
      ? new ConsoleSpanExporter()
      : new OTLPTraceExporter({ url: setting.endpoint });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": setting.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // Registers the AsyncLocalStorage context manager, which carries the active span across awaits.
  provider.register();
  const tracer = provider.getTracer("assay");
  return {
    inSpan(name, attributes, work) {
      return tracer.startActiveSpan(name, { kind: SpanKind.SERVER, attributes }, async (span) => {
        try {
          return await work(handleOf(span));
        } catch (error) {
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: error instanceof Error ? error.message : "failed",
          });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    recordStatement(sql, durationMs, failed) {
      const end = Date.now();
      const span = tracer.startSpan(
        "sql",
        {
          kind: SpanKind.CLIENT,
          startTime: end - durationMs,
          attributes: { "db.system.name": "postgresql", "db.query.text": sql.slice(0, MAX_STATEMENT_CHARS) },
        },
        context.active(),
      );
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(end);
    },
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
