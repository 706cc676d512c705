/**
 * Whether bytes begin an SQLite database. A module of its own, with no other import, so that the
 * sources can tell a database from a log without loading the importers (a hook after every turn
 * starts with it).
 */

/** Every SQLite 3 database starts with these 16 bytes. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

export function isSqliteHeader(head: Uint8Array): boolean {
  return head.length >= SQLITE_HEADER.length && Buffer.from(head.buffer, head.byteOffset, SQLITE_HEADER.length).equals(SQLITE_HEADER);
}
