/**
 * Real object-storage servers on 127.0.0.1 for the tests: s3rver (S3) and dynalite (DynamoDB),
 * from npm. s3rver ignores `If-None-Match` on PUT, so a plain `s3://` store on it is unsafe for
 * concurrent writers (what the probe must catch); `s3+ddb://` commits through the DynamoDB table
 * and is safe. The environment a test passes to the engine and CLI is the AWS SDKs' own.
 */
import { mkdtempSync, promises as fs, rmSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import S3rver from 's3rver';
import dynalite from 'dynalite';

export interface ObjectStoreServers {
  /** The variables a process needs to reach the servers (endpoints, credentials, region). */
  env: Record<string, string>;
  s3: S3Client;
  /** A fresh bucket and commit table, and the `s3+ddb://` URI of a store in it. */
  newStore(name: string): Promise<{ bucket: string; sharedUri: string; plainUri: string }>;
  /** Every object of a bucket: key and bytes. */
  objects(bucket: string): Promise<Array<{ key: string; body: Buffer }>>;
  close(): Promise<void>;
}

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** The parts of s3rver's filesystem store (lib/stores/filesystem.js) that a copy and a put use. */
interface S3rverStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>): Promise<void>;
  getMetadata(bucket: string, key: string): Promise<unknown>;
  copyObject(srcBucket: string, srcKey: string, destBucket: string, destKey: string, replacementMetadata?: Record<string, string>): Promise<unknown>;
  putObject(object: { bucket: string; key: string; content: Buffer | NodeJS.ReadableStream; metadata: Record<string, string> }): Promise<{ size: number; md5: string }>;
  putPart(bucket: string, uploadId: string, partNumber: number, content: NodeJS.ReadableStream): Promise<{ size: number; md5: string }>;
}

/** The files s3rver keeps for one object. */
const OBJECT_FILES = ['object', 'object.md5', 'metadata.json'];

/**
 * Makes s3rver's CopyObject atomic, as S3's is: the target is replaced whole, or left as it was.
 * s3rver 3.7 copies onto an existing key by deleting the target's files first and copying the
 * source's after (fs-extra's copy with overwrite), so a source deleted in between leaves no target
 * at all. LanceDB's commits through a DynamoDB table meet exactly that: the committer copies its
 * staging manifest to the version's final name, records it and deletes the staging object, while a
 * reader that found the version still staged finishes the same commit by copying it too; on
 * s3rver that reader's copy could delete the committed manifest for good ("manifest not found").
 * Here each file is copied under a temporary name beside its target and renamed over it.
 */
function copyAtomically(store: S3rverStore): void {
  const S3Error = createRequire(import.meta.url)('s3rver/lib/models/error.js') as new (code: string, message: string) => Error;
  store.copyObject = async (srcBucket, srcKey, destBucket, destKey, replacementMetadata) => {
    const moves = OBJECT_FILES.map((file) => {
      const target = store.getResourcePath(destBucket, destKey, file);
      return { source: store.getResourcePath(srcBucket, srcKey, file), target, staged: `${target}.copy-${randomUUID()}` };
    });
    if (moves[0]!.source !== moves[0]!.target) {
      await fs.mkdir(path.dirname(moves[0]!.target), { recursive: true });
      try {
        for (const move of moves) await fs.copyFile(move.source, move.staged);
      } catch (error) {
        await Promise.all(moves.map((move) => fs.rm(move.staged, { force: true })));
        // The source went while it was copied: S3 answers as for a source that is not there.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new S3Error('NoSuchKey', 'The specified key does not exist.');
        throw error;
      }
      for (const move of moves) await fs.rename(move.staged, move.target);
    }
    if (replacementMetadata) await store.putMetadata(destBucket, destKey, replacementMetadata);
    return store.getMetadata(destBucket, destKey);
  };
}

/** Writes a body to `file` and answers its size and MD5 once every byte is on disk. */
async function writeBody(content: Buffer | NodeJS.ReadableStream, file: string): Promise<{ size: number; md5: string }> {
  const md5 = createHash('md5');
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const body = Buffer.isBuffer(content) ? Readable.from([content]) : content;
  await pipeline(body, count, createWriteStream(file));
  return { size, md5: md5.digest('hex') };
}

/**
 * Makes s3rver's PutObject atomic, as S3's is: a GET finds the object whole or not at all, and a PUT
 * is answered once the object is stored. s3rver 3.7 writes the object straight to its file and, for
 * a body it holds in memory, answers before the file is written; a part of a multipart upload is
 * answered the same way. LanceDB, which reads a manifest right after writing it, then read a
 * manifest of 0 bytes now and then ("Range started at 0 and ended at 0"). Here the body is written
 * beside the object, its checksum and metadata are put in place, and the object is renamed over
 * its target last.
 */
function putAtomically(store: S3rverStore): void {
  // The metadata s3rver keeps with an object, besides the x-amz-meta-* names.
  const { ALLOWED_METADATA } = createRequire(import.meta.url)('s3rver/lib/models/object.js') as { ALLOWED_METADATA: string[] };
  store.putObject = async (object) => {
    const target = store.getResourcePath(object.bucket, object.key, 'object');
    const staged = (file: string) => `${store.getResourcePath(object.bucket, object.key, file)}.put-${randomUUID()}`;
    const moves = OBJECT_FILES.map((file) => ({ target: store.getResourcePath(object.bucket, object.key, file), staged: staged(file) }));
    await fs.mkdir(path.dirname(target), { recursive: true });
    try {
      const written = await writeBody(object.content, moves[0]!.staged);
      const kept = Object.fromEntries(
        Object.entries(object.metadata).filter(([name]) => name.startsWith('x-amz-meta-') || ALLOWED_METADATA.includes(name)),
      );
      await fs.writeFile(moves[1]!.staged, written.md5);
      await fs.writeFile(moves[2]!.staged, JSON.stringify(kept, null, 2));
      // The object last: until it is there, a GET finds no object rather than a half-written one.
      for (const move of [moves[1]!, moves[2]!, moves[0]!]) await fs.rename(move.staged, move.target);
      return written;
    } catch (error) {
      await Promise.all(moves.map((move) => fs.rm(move.staged, { force: true })));
      throw error;
    }
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const part = path.join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
    await fs.mkdir(path.dirname(part), { recursive: true });
    const written = await writeBody(content, part);
    await fs.writeFile(`${part}.md5`, written.md5);
    return written;
  };
}

export async function startObjectStoreServers(): Promise<ObjectStoreServers> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const directory = mkdtempSync(path.join(os.tmpdir(), 'sm-s3rver-'));
  const s3server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true });
  copyAtomically((s3server as unknown as { store: S3rverStore }).store);
  putAtomically((s3server as unknown as { store: S3rverStore }).store);
  const { port: s3port } = (await s3server.run()) as AddressInfo;
  const ddbServer = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => ddbServer.listen(0, '127.0.0.1', () => resolve()));
  const ddbPort = (ddbServer.address() as AddressInfo).port;
  const env = {
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${s3port}`,
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${ddbPort}`,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const s3 = new S3Client({ endpoint: env.AWS_ENDPOINT_URL_S3, region: env.AWS_REGION, forcePathStyle: true, credentials: CREDENTIALS });
  const dynamo = new DynamoDBClient({ endpoint: env.AWS_ENDPOINT_URL_DYNAMODB, region: env.AWS_REGION, credentials: CREDENTIALS });
  let stores = 0;
  return {
    env,
    s3,
    async newStore(name) {
      const bucket = `${name}-${++stores}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      const table = `${bucket}-commits`;
      await dynamo.send(
        new CreateTableCommand({
          TableName: table,
          AttributeDefinitions: [
            { AttributeName: 'base_uri', AttributeType: 'S' },
            { AttributeName: 'version', AttributeType: 'N' },
          ],
          KeySchema: [
            { AttributeName: 'base_uri', KeyType: 'HASH' },
            { AttributeName: 'version', KeyType: 'RANGE' },
          ],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      return { bucket, sharedUri: `s3+ddb://${bucket}/memory?ddbTableName=${table}`, plainUri: `s3://${bucket}/memory` };
    },
    async objects(bucket) {
      const found: Array<{ key: string; body: Buffer }> = [];
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        for (const item of page.Contents ?? []) {
          let object;
          try {
            object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: item.Key! }));
          } catch (error) {
            // Deleted since it was listed (a writer's cleanup in the background): no longer in the bucket.
            if ((error as { name?: string }).name === 'NoSuchKey') continue;
            throw error;
          }
          found.push({ key: item.Key!, body: Buffer.from(await object.Body!.transformToByteArray()) });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return found;
    },
    async close() {
      s3.destroy();
      dynamo.destroy();
      await s3server.close();
      await new Promise<void>((resolve) => ddbServer.close(() => resolve()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
