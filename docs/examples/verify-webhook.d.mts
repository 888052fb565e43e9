/** Types of verify-webhook.mjs, for the TypeScript tests that run it. */
import type { IncomingHttpHeaders } from "node:http";

export declare const TOLERANCE_SECONDS: number;

export declare function verifyWebhook(
  rawBody: Buffer | string,
  headers: IncomingHttpHeaders,
  secret: string,
  nowMs?: number,
): { id: string; type: string; createdAt: number; data: unknown };

export declare function verifyDeepSourceSignature(
  rawBody: Buffer | string,
  headers: IncomingHttpHeaders,
  secret: string,
): boolean;
