/**
 * Tests only: the coverage parser tests' helpers, kept under their old import path. The reader
 * of the real tools' fixtures and these helpers live in ../fixtures.ts.
 */
export { fileOf, hitsOf, readFixture } from "../fixtures.ts";
