/**
 * The largest `.deepsource.toml` accepted, in bytes of UTF-8: checked by the server before it
 * parses one, and by `assay upload` before it sends one. A module of its own so the CLI's bundle
 * takes the number without the parser.
 */
export const CONFIG_MAX_BYTES = 64 * 1024;
