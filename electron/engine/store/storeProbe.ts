/**
 * Whether concurrent writers are safe on a store. LanceDB commits a new version by writing its
 * manifest only if absent: on S3 that needs the server to honour `If-None-Match: *` on PUT (AWS S3
 * since 2024, MinIO, R2), unless the commits go through a DynamoDB table (`s3+ddb://`). A server
 * that ignores it lets two writers commit the same version, and one save is lost without an error.
 * The probe asks the server itself: it puts one object twice with `If-None-Match: *`; the second put
 * must be refused.
 */
import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { StoreLocation } from '../files/location.js';

export type ProbeResult = { safe: true; how: string } | { safe: false; why: string };

export async function probeConcurrentWrites(location: StoreLocation, env: NodeJS.ProcessEnv = process.env): Promise<ProbeResult> {
  switch (location.kind) {
    case 'folder':
      return { safe: true, how: 'a local folder: LanceDB commits by atomic rename' };
    case 's3+ddb':
      return { safe: true, how: 'commits go through the DynamoDB table' };
    case 'gs':
    case 'az':
      return { safe: true, how: 'the service refuses a second create of the same object (generation and ETag preconditions)' };
    case 's3':
      return probeS3(location, env);
  }
}

async function probeS3(location: StoreLocation, env: NodeJS.ProcessEnv): Promise<ProbeResult> {
  // The AWS SDK for JavaScript warns about Node 20 on its first request; the pinned version works.
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const url = new URL(location.display);
  const bucket = url.hostname;
  const prefix = url.pathname.replace(/^\/+|\/+$/g, '');
  const client = s3ClientFor(location);
  const key = `${prefix ? `${prefix}/` : ''}_probe/${randomUUID()}`;
  try {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'first', IfNoneMatch: '*' }));
    try {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'second', IfNoneMatch: '*' }));
      return { safe: false, why: 'the server accepted a second put-if-absent of the same object (it ignores If-None-Match), so two machines saving at once could overwrite each other\'s commits without an error' };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 412 || status === 409) return { safe: true, how: 'the server refuses a second put-if-absent (conditional writes)' };
      throw error;
    }
  } finally {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => {});
    client.destroy();
  }
}

/** An S3 client for the store's bucket, with the endpoint and region LanceDB is given (files/location.ts). */
export function s3ClientFor(location: StoreLocation): S3Client {
  // The AWS SDK for JavaScript warns about Node 20 on its first request; the pinned version works.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const endpoint = location.storageOptions.endpoint;
  return new S3Client({
    ...(endpoint ? { endpoint, forcePathStyle: location.storageOptions.virtual_hosted_style_request === 'false' } : {}),
    region: location.storageOptions.region ?? 'us-east-1',
  });
}

/** The one line that says why a store is refused for concurrent writing, and what to do. */
export function unsafeStoreMessage(location: StoreLocation, why: string): string {
  const url = new URL(location.display);
  return (
    `${location.display}: ${why}. Use s3+ddb://${url.hostname}${url.pathname}?ddbTableName=<table> (LanceDB's DynamoDB commit table, ` +
    `keys base_uri (string, hash) and version (number, range)), or --single-writer if only this machine ever writes to it`
  );
}
