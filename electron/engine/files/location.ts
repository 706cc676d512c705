/**
 * Where a memory lives: a local folder, or a URI LanceDB can write (`s3://`, `s3+ddb://`, `gs://`,
 * `az://`). A store's URI names the memory; everything derived from it (the archive record, the
 * vector sketch, the near-duplicate pairs), the write lock, models and logs stay on this machine, in
 * its local folder (`SESSION_MEMORY_HOME` or the app's folder). Credentials and endpoints come from
 * the places the AWS, Google and Azure SDKs read; an endpoint may be plain http only when it says so.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { defaultDataDir } from './paths.js';
import { MODELS_FOLDER, SHARED_STORES_FOLDER, STORE_FOLDER } from './layout.js';

export type StoreKind = 'folder' | 's3' | 's3+ddb' | 'gs' | 'az';

export interface StoreLocation {
  kind: StoreKind;
  /** The LanceDB URI of the store (a local path for a folder). */
  uri: string;
  /** What a person is shown: the folder, or the URI without its query. */
  display: string;
  /** Options for `lancedb.connect`, read from the environment (none for a folder). */
  storageOptions: Record<string, string>;
  /** This machine's folder for what the store's data gives (caches, lock, journals of derived data). */
  localDir: string;
}

export class StoreLocationError extends Error {
  readonly code = 'bad_store_location';
}

const SCHEMES: Record<string, StoreKind> = { 's3:': 's3', 's3+ddb:': 's3+ddb', 'gs:': 'gs', 'az:': 'az', 'abfs:': 'az' };

/** True when `data` names a store by URI rather than a local folder. */
export function isStoreUri(data: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(data) && !/^file:\/\//i.test(data);
}

/**
 * Reads `--data`: a folder keeps its layout (`<folder>/lancedb` is the store, the folder itself is
 * the local folder); a URI is the store, and `home` is this machine's folder, with one sub-folder per
 * store so two stores never share caches.
 */
export function resolveStoreLocation(data: string, home: string, env: NodeJS.ProcessEnv = process.env): StoreLocation {
  if (!isStoreUri(data)) {
    const folder = path.resolve(data.replace(/^file:\/\//i, ''));
    return { kind: 'folder', uri: path.join(folder, STORE_FOLDER), display: folder, storageOptions: {}, localDir: folder };
  }
  let url: URL;
  try {
    url = new URL(data);
  } catch {
    throw new StoreLocationError(`${data}: not a store URI (expected s3://bucket/prefix, s3+ddb://bucket/prefix?ddbTableName=T, gs://bucket/prefix or az://container/prefix)`);
  }
  const kind = SCHEMES[url.protocol.toLowerCase()];
  if (!kind) throw new StoreLocationError(`${data}: ${url.protocol}// stores are not supported (use a folder, s3://, s3+ddb://, gs:// or az://)`);
  if (!url.hostname) throw new StoreLocationError(`${data}: the URI names no bucket`);
  const params = [...url.searchParams.keys()];
  if (kind === 's3+ddb') {
    if (!url.searchParams.get('ddbTableName') || params.length !== 1) {
      throw new StoreLocationError(`${data}: an s3+ddb:// store needs exactly one query parameter, ddbTableName (the DynamoDB commit table), e.g. s3+ddb://bucket/memory?ddbTableName=session-memory-commits`);
    }
  } else if (params.length > 0) {
    throw new StoreLocationError(`${data}: ${url.protocol}// takes no query parameters; endpoints and credentials come from the environment (AWS_ENDPOINT_URL, AWS_PROFILE, ...)`);
  }
  const prefix = url.pathname.replace(/^\/+|\/+$/g, '');
  const display = `${url.protocol}//${url.hostname}${prefix ? `/${prefix}` : ''}`;
  const key = `${url.hostname}${prefix ? `-${prefix}` : ''}`.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  const digest = createHash('sha256').update(`${kind}|${display}`).digest('hex').slice(0, 10);
  return {
    kind,
    uri: `${display}${kind === 's3+ddb' ? `?ddbTableName=${encodeURIComponent(url.searchParams.get('ddbTableName')!)}` : ''}`,
    display,
    storageOptions: storageOptionsFor(kind, env),
    localDir: path.join(path.resolve(home), SHARED_STORES_FOLDER, `${key}-${digest}`),
  };
}

/**
 * LanceDB's storage options from the SDKs' own variables. LanceDB reads credentials (the AWS
 * variables and profile chain, GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_*) itself; what it does
 * not read under the SDKs' names are the per-service endpoints, so those are passed here.
 */
export function storageOptionsFor(kind: StoreKind, env: NodeJS.ProcessEnv): Record<string, string> {
  const options: Record<string, string> = {};
  if (kind === 's3' || kind === 's3+ddb') {
    const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
    const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    if (endpoint) options.endpoint = endpoint;
    if (region) options.region = region;
    const endpoints = [endpoint];
    if (kind === 's3+ddb') {
      const dynamo = env.AWS_ENDPOINT_URL_DYNAMODB ?? env.AWS_ENDPOINT_URL;
      if (dynamo) options.dynamodb_endpoint = dynamo;
      endpoints.push(dynamo);
    }
    // Plain http only towards an endpoint that asks for it (a MinIO or test server on a private network).
    if (endpoints.some((e) => e?.toLowerCase().startsWith('http://'))) options.allow_http = 'true';
    // A custom endpoint (MinIO, R2, a test server) is addressed by path: bucket names are not host names there.
    if (endpoint && !/amazonaws\.com/i.test(endpoint)) options.virtual_hosted_style_request = 'false';
  }
  return options;
}

/** The kind of store a LanceDB URI names (a local path is a folder). */
export function storeKindOf(uri: string): StoreKind {
  if (!isStoreUri(uri)) return 'folder';
  return SCHEMES[uri.slice(0, uri.indexOf('//')).toLowerCase()] ?? 'folder';
}

/** Where this machine keeps its own files for a store given by `--data` (or the default folder). */
export function localHomeFor(data: string | undefined, defaultHome: string): string {
  return data && !isStoreUri(data) ? path.resolve(data) : defaultHome;
}

/** What an engine is opened with for a `--data` value (a folder or a store URI; default: this machine's folder). */
export interface EngineLocation {
  /** This machine's folder for the store (caches, lock, logs). */
  dataDir: string;
  storeUri: string;
  /** Models are shared by every store of this machine: `<home>/models` for a store on object storage. */
  modelsDir?: string;
  /** The folder or URI, as a person is shown it. */
  display: string;
  shared: boolean;
}

export function locate(data: string | undefined, env: NodeJS.ProcessEnv = process.env): EngineLocation {
  const home = defaultDataDir(env);
  const location = resolveStoreLocation(data ?? home, home, env);
  if (location.kind === 'folder') return { dataDir: location.localDir, storeUri: location.uri, display: location.display, shared: false };
  return { dataDir: location.localDir, storeUri: location.uri, modelsDir: path.join(home, MODELS_FOLDER), display: location.display, shared: true };
}
