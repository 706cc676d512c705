/**
 * The one reader of store URIs (shared/storeUri.ts) that the engine, the CLI and Settings share: what
 * it accepts, and that a refusal names the URI without anything that could be a secret.
 */
import { describe, expect, it } from 'vitest';
import { isStoreUri, parseStoreUri, storeKindOf, storeUriForMessages } from '../shared/storeUri.js';

describe('store URIs', () => {
  it('reads each kind, keeping an s3+ddb:// table and showing the URI without its query', () => {
    expect(parseStoreUri('s3+ddb://team/memory/?ddbTableName=commits')).toEqual({ kind: 's3+ddb', uri: 's3+ddb://team/memory?ddbTableName=commits', display: 's3+ddb://team/memory', key: 'team-memory' });
    expect(parseStoreUri('gs://team')).toMatchObject({ kind: 'gs', uri: 'gs://team', display: 'gs://team' });
    expect(parseStoreUri('az://container/a/b')).toMatchObject({ kind: 'az', display: 'az://container/a/b' });
    expect(storeKindOf('/home/ana/memory')).toBe('folder');
    expect(isStoreUri('file:///home/ana/memory')).toBe(false);
  });

  it('refuses credentials in the URI and never repeats them or a query', () => {
    expect(() => parseStoreUri('s3://AKIAEXAMPLE:wJalrXUtnFEMI@team/memory')).toThrow(/^s3:\/\/team\/memory: credentials do not go in the URI; they are read from the environment/);
    expect(() => parseStoreUri('gs://token@team')).toThrow(/^gs:\/\/team: credentials do not go in the URI/);
    for (const uri of ['s3://AKIA:secret@team/memory?x=1', 's3://team/memory?aws_secret_access_key=secret', 's3+ddb://team/m?ddbTableName=t&secret=secret', 'ftp://u:secret@host/x', 's3://u:secret@']) {
      let message = '';
      try {
        parseStoreUri(uri);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, uri).not.toBe('');
      expect(message, uri).not.toContain('secret');
    }
    expect(storeUriForMessages('s3+ddb://key:secret@team/memory?ddbTableName=t')).toBe('s3+ddb://team/memory');
  });
});
