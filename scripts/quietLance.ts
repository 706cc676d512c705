// LanceDB logs a warning of its own to stderr at every connection to an s3+ddb:// store (about a
// catalogue this product does not use), as bin/session-memory.mjs explains. Imported first by the
// scripts that open such stores: LanceDB reads the variable when its native module loads.
process.env.LANCEDB_LOG ??= 'error';
