/**
 * Imported first by the app's and web mode's entry points: LanceDB logs warnings of its own to
 * stderr (one per connection to an s3+ddb:// store, about a catalogue this product does not use);
 * errors still show. The variable is read when LanceDB's native module loads, so it is set before
 * any module that imports LanceDB is evaluated (imports run in order).
 */
process.env.LANCEDB_LOG ??= 'error';
