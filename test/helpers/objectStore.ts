/**
 * Real object-storage servers on 127.0.0.1 for the tests: s3rver (S3) and dynalite (DynamoDB),
 * from npm. s3rver ignores `If-None-Match` on PUT, so a plain `s3://` store on it is unsafe for
 * concurrent writers (what the probe must catch); `s3+ddb://` commits through the DynamoDB table
 * and is safe. The environment a test passes to the engine and CLI is the AWS SDKs' own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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

export async function startObjectStoreServers(): Promise<ObjectStoreServers> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const directory = mkdtempSync(path.join(os.tmpdir(), 'sm-s3rver-'));
  const s3server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true });
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
          const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: item.Key! }));
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
