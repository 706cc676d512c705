/**
 * The version of a store's save-history table, read by a connection of its own (0 before the table is
 * made): a commit of the history shows as a new version, so tests count the commits a save makes.
 */
import { HISTORY_TABLE } from '../../electron/engine/record/history.js';
import { connectStore } from '../../electron/engine/store/connect.js';
import { isTableCommitted } from '../../electron/engine/store/storeCreation.js';

export async function historyVersion(storeUri: string): Promise<number> {
  const db = await connectStore(storeUri, { readConsistencyInterval: 0 });
  try {
    if (!(await isTableCommitted(storeUri, HISTORY_TABLE, db))) return 0;
    const table = await db.openTable(HISTORY_TABLE);
    const version = await table.version();
    table.close();
    return version;
  } finally {
    db.close();
  }
}
