/**
 * Reading a store URI (`s3://bucket/prefix`, `s3+ddb://bucket/prefix?ddbTableName=T`, `gs://…`,
 * `az://…`): plain TypeScript, so that the engine, the CLI and the app's Settings all accept and
 * refuse the same URIs with the same messages.
 */

export type StoreKind = 'folder' | 's3' | 's3+ddb' | 'gs' | 'az';

export class StoreLocationError extends Error {
  readonly code = 'bad_store_location';
}

const SCHEMES: Record<string, Exclude<StoreKind, 'folder'>> = { 's3:': 's3', 's3+ddb:': 's3+ddb', 'gs:': 'gs', 'az:': 'az', 'abfs:': 'az' };

/** True when `data` names a store by URI rather than a local folder. */
export function isStoreUri(data: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(data) && !/^file:\/\//i.test(data);
}

/** The kind of store a LanceDB URI names (a local path is a folder). */
export function storeKindOf(uri: string): StoreKind {
  if (!isStoreUri(uri)) return 'folder';
  return SCHEMES[uri.slice(0, uri.indexOf('//')).toLowerCase()] ?? 'folder';
}

export interface ParsedStoreUri {
  kind: Exclude<StoreKind, 'folder'>;
  /** The LanceDB URI: scheme, bucket and prefix (and for s3+ddb:// its table). */
  uri: string;
  /** What a person is shown: the URI without its query. */
  display: string;
  /** A name for this machine's folder of the store (bucket and prefix, file-name safe). */
  key: string;
}

/**
 * A store URI as it may be repeated in a message: without a user or password and without its query
 * (neither belongs in a store URI, and either could hold a secret a person pasted by mistake).
 */
export function storeUriForMessages(data: string): string {
  return data.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1').replace(/[?#].*$/s, '');
}

/** Reads a store URI; throws StoreLocationError naming the URI (without secrets) and what is wrong with it. */
export function parseStoreUri(data: string): ParsedStoreUri {
  const shown = storeUriForMessages(data);
  let url: URL;
  try {
    url = new URL(data);
  } catch {
    throw new StoreLocationError(`${shown}: not a store URI (expected s3://bucket/prefix, s3+ddb://bucket/prefix?ddbTableName=T, gs://bucket/prefix or az://container/prefix)`);
  }
  const kind = SCHEMES[url.protocol.toLowerCase()];
  if (!kind) throw new StoreLocationError(`${shown}: ${url.protocol}// stores are not supported (use a folder, s3://, s3+ddb://, gs:// or az://)`);
  // Kept out of the URI, which is stored in the settings and shown: credentials come from the environment.
  if (url.username || url.password) throw new StoreLocationError(`${shown}: credentials do not go in the URI; they are read from the environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_ACCOUNT_KEY, ...)`);
  if (!url.hostname) throw new StoreLocationError(`${shown}: the URI names no bucket`);
  const params = [...url.searchParams.keys()];
  if (kind === 's3+ddb') {
    if (!url.searchParams.get('ddbTableName') || params.length !== 1) {
      throw new StoreLocationError(`${shown}: an s3+ddb:// store needs exactly one query parameter, ddbTableName (the DynamoDB commit table), e.g. s3+ddb://bucket/memory?ddbTableName=session-memory-commits`);
    }
  } else if (params.length > 0) {
    throw new StoreLocationError(`${shown}: ${url.protocol}// takes no query parameters; endpoints and credentials come from the environment (AWS_ENDPOINT_URL, AWS_PROFILE, ...)`);
  }
  const prefix = url.pathname.replace(/^\/+|\/+$/g, '');
  const display = `${url.protocol}//${url.hostname}${prefix ? `/${prefix}` : ''}`;
  return {
    kind,
    uri: `${display}${kind === 's3+ddb' ? `?ddbTableName=${encodeURIComponent(url.searchParams.get('ddbTableName')!)}` : ''}`,
    display,
    key: `${url.hostname}${prefix ? `-${prefix}` : ''}`.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60),
  };
}
