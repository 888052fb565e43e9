/**
 * Every domain module, in dependency order. Importing a module adds its types, fields and root
 * queries to the schema builder; `graphql/schema.ts` imports this file and builds the schema.
 */
import "../graphql/scalars.ts";
import "../graphql/node.ts";
import "./catalog/catalog-type.ts";
import "./users/user-type.ts";
import "./accounts/account-type.ts";
import "./repositories/repository-type.ts";
import "./runs/run-type.ts";
import "./installation/installation-type.ts";
