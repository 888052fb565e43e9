/** Tables of migration 0005-auth-flows: device login and session (refresh) tokens. */

// biome-ignore lint/suspicious/noEmptyInterface: filled by the auth-flows migration's tables
export interface AuthFlowTables {}
