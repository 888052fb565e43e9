/** Mutations of this module (docs/workflows.md); being written. */
export {};
