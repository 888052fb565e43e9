/**
 * The webhooks module's entry in the schema (listed in modules/index.ts): endpoint, delivery and
 * attempt types with their queries, then the mutations.
 */
import "./endpoint-type.ts";
import "./webhook-mutations.ts";
