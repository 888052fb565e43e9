import type { IncomingMessage, ServerResponse } from "node:http";
import { AssayError, ErrorCode, errorDocument, notFound } from "../graphql/errors.ts";
import type { Logger } from "../logger.ts";
import { sendJson } from "./json.ts";

/**
 * `GET /cli/assay-cli.tgz`: the standalone `assay upload` package of this server's version, so a
 * CI job anywhere runs `npx --yes <server>/cli/assay-cli.tgz upload ...` with a client that
 * matches its server (docs/ingestion.md). The tarball is built on the first request and kept in
 * memory. The plain name is revalidated on every use (a server upgrade changes it); the name with
 * the content hash never changes meaning and is cached for a year.
 */

/** The path CI scripts use. */
export const CLI_PACKAGE_PATH = "/cli/assay-cli.tgz";
const HASHED_PATH = /^\/cli\/assay-cli-[0-9A-Za-z.+-]+-([0-9a-f]{16})\.tgz$/;

/** A built package as the route serves it. */
export interface ServedCliPackage {
  version: string;
  bytes: Buffer;
  /** SHA-256 of `bytes`, hexadecimal. */
  sha256: string;
}

/** True for the paths this route answers. */
export function isCliPackagePath(path: string): boolean {
  return path === CLI_PACKAGE_PATH || HASHED_PATH.test(path);
}

/** The content-addressed path of `pkg`: version and the first 16 hexadecimal digits of its hash. */
export function hashedCliPackagePath(pkg: ServedCliPackage): string {
  return `/cli/assay-cli-${pkg.version}-${pkg.sha256.slice(0, 16)}.tgz`;
}

/**
 * Makes the route's handler over `build`, which is called once; a failed build is logged,
 * answered 503 with its reason, and tried again on the next request.
 */
export function createCliDownload(
  build: () => Promise<ServedCliPackage>,
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> {
  let built: Promise<ServedCliPackage> | undefined;
  return async (req, res, path) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      const error = new AssayError(
        `Method ${req.method} is not allowed; use GET.`,
        ErrorCode.METHOD_NOT_ALLOWED,
      );
      sendJson(res, 405, errorDocument(error), { allow: "GET, HEAD" });
      return;
    }
    built ??= build();
    let pkg: ServedCliPackage;
    try {
      pkg = await built;
    } catch (error) {
      built = undefined;
      logger.error({ err: error }, "building the CLI package failed");
      // The cause (a missing npm, a path of this machine) is for the operator's log, not the caller.
      const message = "The CLI package could not be built on this server; its log says why.";
      sendJson(res, 503, errorDocument(new AssayError(message, ErrorCode.INTERNAL_SERVER_ERROR)));
      return;
    }
    const hashed = hashedCliPackagePath(pkg);
    if (path !== CLI_PACKAGE_PATH && path !== hashed) {
      sendJson(
        res,
        404,
        errorDocument(
          notFound(`No such CLI package; this server serves ${CLI_PACKAGE_PATH} (now ${hashed}).`),
        ),
      );
      return;
    }
    const etag = `"sha256-${pkg.sha256}"`;
    const headers: Record<string, string | number> = {
      "content-type": "application/gzip",
      "content-disposition": `attachment; filename="assay-cli-${pkg.version}.tgz"`,
      etag,
      "content-location": hashed,
      "x-content-type-options": "nosniff",
      "cache-control": path === hashed ? "public, max-age=31536000, immutable" : "no-cache",
    };
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, "content-length": pkg.bytes.length });
    res.end(req.method === "HEAD" ? undefined : pkg.bytes);
  };
}
