import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { type ToolAnswer, type ToolBackend, toolResult } from "./tool-kit.ts";

/** One tool as its file declares it: what the assistant is shown, and how it answers. */
export interface ToolSpec<S extends z.ZodRawShape, O extends z.ZodObject> {
  /** snake_case, unique among the tools. */
  name: string;
  title: string;
  /** What the tool answers, written for the assistant choosing among tools. */
  description: string;
  /** The arguments, each with a description; enums where the API has one. */
  inputSchema: S;
  /** A strict object schema: every answer fits it exactly (no field left out, none added). */
  outputSchema: O;
  annotations: ToolAnnotations;
  /** The answer to `args` (already checked against `inputSchema` by the SDK). */
  answer(backend: ToolBackend, args: z.output<z.ZodObject<S>>): Promise<ToolAnswer<z.output<O>>>;
}

/** A tool ready to be offered by a server. */
export interface AssayTool {
  name: string;
  /** The output schema, for tests that check answers against it. */
  outputSchema: z.ZodObject;
  /** Offers the tool on `server`, answering through `backend`. */
  register(server: McpServer, backend: ToolBackend): void;
}

/** Declares a tool; its arguments and answer are typed from its schemas. */
export function defineTool<S extends z.ZodRawShape, O extends z.ZodObject>(spec: ToolSpec<S, O>): AssayTool {
  return {
    name: spec.name,
    outputSchema: spec.outputSchema,
    register(server, backend) {
      // Widened for the SDK's overloads; the SDK parses the arguments with this very shape before
      // the callback runs, so they are the shape's output.
      const inputSchema: z.ZodRawShape = spec.inputSchema;
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description: spec.description,
          inputSchema,
          outputSchema: spec.outputSchema,
          annotations: { title: spec.title, ...spec.annotations },
        },
        (args: Record<string, unknown>) =>
          toolResult(backend, () => spec.answer(backend, args as z.output<z.ZodObject<S>>)),
      );
    },
  };
}
