/**
 * Whether the provider of a store keeps the objects that forgetting deletes. Forgetting removes every
 * object that held the text (forget.ts), but a bucket with versioning (S3), soft delete (Google Cloud
 * Storage, on by default for 7 days) or blob soft delete and versioning (Azure) keeps deleted
 * objects for a time, and the forgotten text with them. Asked where the API allows it: S3's
 * GetBucketVersioning (and the lifecycle rules that expire old versions). No Google Cloud or Azure
 * client is installed, so for those the answer is "unknown", with the commands that check and turn
 * it off. The S3 client is loaded only to ask a bucket: it is a third of a second of CPU, which the
 * CLI would pay at every start, on a local folder too, if this module loaded it.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { DeletedObjectRetention } from '../../../shared/domain.js';
import { resolveStoreLocation, type StoreLocation } from '../files/location.js';

/** What the S3 calls need of a client (a test passes a stand-in that answers as a versioned bucket would). */
export type S3Sender = Pick<S3Client, 'send' | 'destroy'>;

/** The same for a store's URI (or a folder's store path), with the endpoints the environment gives. */
export function storeRetention(storeUri: string): Promise<DeletedObjectRetention> {
  // Only the kind, the bucket and the storage options are read: no local folder is used.
  return deletedObjectRetention(resolveStoreLocation(storeUri, '.'));
}

export async function deletedObjectRetention(location: StoreLocation, makeS3?: (location: StoreLocation) => S3Sender): Promise<DeletedObjectRetention> {
  const url = location.kind === 'folder' ? null : new URL(location.display);
  switch (location.kind) {
    case 'folder':
      return { state: 'none', message: 'A local folder: forgetting deletes the files that held the text (backups you made of the folder keep what they copied).' };
    case 's3':
    case 's3+ddb':
      return s3Retention(url!.hostname, url!.pathname.replace(/^\/+|\/+$/g, ''), makeS3 ? makeS3(location) : (await import('./storeProbe.js')).s3ClientFor(location));
    case 'gs':
      return {
        state: 'unknown',
        message:
          `Unknown whether gs://${url!.hostname} keeps deleted objects: Google Cloud Storage keeps them for 7 days by default (soft delete), and forgotten text stays in them for that time. ` +
          `Check: gcloud storage buckets describe gs://${url!.hostname} --format="default(soft_delete_policy)". Turn it off: gcloud storage buckets update gs://${url!.hostname} --clear-soft-delete (and turn off object versioning if it is on).`,
      };
    case 'az':
      return {
        state: 'unknown',
        message:
          `Unknown whether the Azure container ${url!.hostname} keeps deleted blobs: with blob soft delete or versioning on, forgotten text stays in the kept blobs for the retention days set on the storage account. ` +
          'Check: az storage account blob-service-properties show --account-name <account> (deleteRetentionPolicy, isVersioningEnabled). Turn it off: az storage account blob-service-properties update --account-name <account> --enable-delete-retention false --enable-versioning false.',
      };
  }
}

async function s3Retention(bucket: string, prefix: string, client: S3Sender): Promise<DeletedObjectRetention> {
  const turnOff =
    `Turn it off: aws s3api put-bucket-versioning --bucket ${bucket} --versioning-configuration Status=Suspended, then delete the noncurrent versions ` +
    '(or add a lifecycle rule with NoncurrentVersionExpiration of 1 day, which removes them for you).';
  try {
    const { GetBucketVersioningCommand } = await import('@aws-sdk/client-s3');
    let status: string | undefined;
    try {
      status = (await client.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status;
    } catch (error) {
      const name = (error as { name?: string }).name ?? 'error';
      return {
        state: 'unknown',
        message:
          `Unknown whether s3://${bucket} keeps deleted objects (GetBucketVersioning answered ${name}: ${error instanceof Error ? error.message : String(error)}). ` +
          `If versioning is on, forgotten text stays in the bucket's noncurrent versions until they are deleted. Check: aws s3api get-bucket-versioning --bucket ${bucket}.`,
      };
    }
    if (status !== 'Enabled' && status !== 'Suspended') return { state: 'off', message: `s3://${bucket} keeps no versions of deleted objects (versioning was never turned on): forgotten text is in no object.` };
    const days = await noncurrentDays(client, bucket, prefix);
    const kept = days !== undefined ? `for ${days} day${days === 1 ? '' : 's'} (a lifecycle rule expires them)` : 'until they are deleted (no lifecycle rule expires them)';
    if (status === 'Enabled') {
      return { state: 'on', ...(days !== undefined ? { days } : {}), message: `Versioning is on for s3://${bucket}: forgotten text stays in the bucket's noncurrent versions ${kept}. ${turnOff}` };
    }
    return {
      state: 'suspended',
      ...(days !== undefined ? { days } : {}),
      message: `Versioning of s3://${bucket} is suspended: objects deleted now are not kept, but text forgotten while it was on stays in noncurrent versions ${kept}. Delete the noncurrent versions to remove it.`,
    };
  } finally {
    client.destroy();
  }
}

/** The fewest days after which an enabled lifecycle rule that covers the store expires noncurrent versions, if any does. */
async function noncurrentDays(client: S3Sender, bucket: string, prefix: string): Promise<number | undefined> {
  let rules;
  try {
    const { GetBucketLifecycleConfigurationCommand } = await import('@aws-sdk/client-s3');
    rules = (await client.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }))).Rules ?? [];
  } catch {
    return undefined;
  }
  const days = rules
    .filter((rule) => rule.Status === 'Enabled' && rule.NoncurrentVersionExpiration?.NoncurrentDays !== undefined)
    .filter((rule) => {
      const rulePrefix = rule.Filter?.Prefix ?? rule.Filter?.And?.Prefix ?? rule.Prefix ?? '';
      // A rule covers the store when its prefix is empty or a leading part of the store's path.
      return rulePrefix === '' || `${prefix}/`.startsWith(rulePrefix);
    })
    .map((rule) => rule.NoncurrentVersionExpiration!.NoncurrentDays!);
  return days.length > 0 ? Math.min(...days) : undefined;
}
