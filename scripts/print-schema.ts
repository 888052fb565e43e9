/** Writes the schema the code builds to `schema.graphql` (committed; a test fails on drift). */
import fs from "node:fs";
import { printAssaySchema } from "../src/schema.ts";

const target = new URL("../schema.graphql", import.meta.url);
fs.writeFileSync(target, printAssaySchema());
process.stdout.write(`wrote ${target.pathname.split("/").pop()}\n`);
