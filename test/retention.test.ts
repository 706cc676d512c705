/**
 * Whether a store's provider keeps what forgetting deletes: asked of S3 (bucket versioning and the
 * lifecycle rules that expire old versions), said to be unknown where it cannot be asked (Google Cloud
 * Storage, Azure: no client installed; an S3 server that refuses the call). s3rver keeps no versions
 * and answers GetBucketVersioning with an empty configuration (as a bucket whose versioning was never
 * turned on), so the answers of a versioned bucket come from a stand-in client; the real call path
 * runs against s3rver, through `verify` too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { GetBucketLifecycleConfigurationCommand, GetBucketVersioningCommand } from '@aws-sdk/client-s3';
import { deletedObjectRetention, storeRetention, type S3Sender } from '../electron/engine/store/retention.js';
import { resolveStoreLocation } from '../electron/engine/files/location.js';
import { HASH_EMBEDDER, runCli } from './helpers/cli.js';
import { conversation, tempDir } from './helpers/engine.js';
import { startObjectStoreServers, type ObjectStoreServers } from './helpers/objectStore.js';
import { writeFileSync } from 'node:fs';

/** A client that answers as a bucket with this versioning status and these lifecycle rules would. */
function bucketAnswering(status: string | undefined, rules: unknown[] | Error): S3Sender {
  return {
    send: (async (command: unknown) => {
      if (command instanceof GetBucketVersioningCommand) return status ? { Status: status } : {};
      if (command instanceof GetBucketLifecycleConfigurationCommand) {
        if (rules instanceof Error) throw rules;
        return { Rules: rules };
      }
      throw new Error('unexpected command');
    }) as S3Sender['send'],
    destroy: () => {},
  };
}

function refusing(name: string, message: string): S3Sender {
  return {
    send: (async () => {
      throw Object.assign(new Error(message), { name });
    }) as S3Sender['send'],
    destroy: () => {},
  };
}

const bucket = resolveStoreLocation('s3+ddb://notes-bucket/memory?ddbTableName=commits', '/tmp/home', {});
const noLifecycle = Object.assign(new Error('The lifecycle configuration does not exist'), { name: 'NoSuchLifecycleConfiguration' });

describe('what a store\'s provider keeps of deleted objects', () => {
  it('a versioned S3 bucket: forgotten text stays in its noncurrent versions, for the days a lifecycle rule gives, and how to turn it off', async () => {
    const rules = [
      { Status: 'Enabled', Filter: { Prefix: 'other/' }, NoncurrentVersionExpiration: { NoncurrentDays: 1 } },
      { Status: 'Disabled', Filter: {}, NoncurrentVersionExpiration: { NoncurrentDays: 2 } },
      { Status: 'Enabled', Filter: { Prefix: 'memory/' }, NoncurrentVersionExpiration: { NoncurrentDays: 30 } },
      { Status: 'Enabled', Filter: {}, NoncurrentVersionExpiration: { NoncurrentDays: 90 } },
    ];
    const on = await deletedObjectRetention(bucket, () => bucketAnswering('Enabled', rules));
    expect(on).toMatchObject({ state: 'on', days: 30 });
    expect(on.message).toContain('forgotten text stays in the bucket\'s noncurrent versions for 30 days');
    expect(on.message).toContain('aws s3api put-bucket-versioning --bucket notes-bucket --versioning-configuration Status=Suspended');

    const forever = await deletedObjectRetention(bucket, () => bucketAnswering('Enabled', noLifecycle));
    expect(forever.state).toBe('on');
    expect(forever.days).toBeUndefined();
    expect(forever.message).toContain('until they are deleted');
  });

  it('a bucket whose versioning is suspended, one where it was never on, and one that cannot be asked', async () => {
    const suspended = await deletedObjectRetention(bucket, () => bucketAnswering('Suspended', noLifecycle));
    expect(suspended.state).toBe('suspended');
    expect(suspended.message).toMatch(/text forgotten while it was on stays in noncurrent versions/);
    const off = await deletedObjectRetention(bucket, () => bucketAnswering(undefined, []));
    expect(off).toEqual({ state: 'off', message: expect.stringContaining('keeps no versions of deleted objects') });
    const denied = await deletedObjectRetention(bucket, () => refusing('AccessDenied', 'Access Denied'));
    expect(denied.state).toBe('unknown');
    expect(denied.message).toContain('GetBucketVersioning answered AccessDenied');
  });

  it('Google Cloud Storage and Azure are unknown, with the commands that check and turn soft delete off; a folder keeps nothing', async () => {
    const gs = await storeRetention('gs://team-notes/memory');
    expect(gs.state).toBe('unknown');
    expect(gs.message).toContain('7 days by default');
    expect(gs.message).toContain('gcloud storage buckets update gs://team-notes --clear-soft-delete');
    const az = await storeRetention('az://notes/memory');
    expect(az.state).toBe('unknown');
    expect(az.message).toContain('--enable-delete-retention false');
    expect((await storeRetention(path.join('/tmp', 'memory', 'lancedb'))).state).toBe('none');
  });
});

describe('against a real S3 server (s3rver, which keeps no versions)', () => {
  let servers: ObjectStoreServers;
  const savedEnv = { ...process.env };
  const cleanups: Array<() => void> = [];
  beforeAll(async () => {
    servers = await startObjectStoreServers();
  }, 60_000);
  afterAll(async () => {
    await servers?.close();
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    cleanups.forEach((c) => c());
  });

  it('says versioning is off, in the answer and in verify', async () => {
    const { sharedUri } = await servers.newStore('retention');
    Object.assign(process.env, servers.env);
    const answer = await storeRetention(sharedUri);
    expect(answer.state).toBe('off');
    expect(answer.message).toMatch(/^s3:\/\/retention-\d+ keeps no versions of deleted objects/);

    const work = tempDir('sm-retention-');
    cleanups.push(work.cleanup);
    const file = path.join(work.dir, 'session.json');
    writeFileSync(file, JSON.stringify(conversation(4, { sessionId: 'kept' })));
    // The subject is what verify says of the bucket, not embedding: the hashing stand-in embeds.
    const env = { ...servers.env, ...HASH_EMBEDDER, SESSION_MEMORY_HOME: path.join(work.dir, 'home') };
    expect((await runCli(['--data', sharedUri, 'save', file], env)).status).toBe(0);
    const verified = await runCli(['--data', sharedUri, 'verify', '--json'], env);
    expect(verified.status, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).retention).toMatchObject({ state: 'off' });
    const said = await runCli(['--data', sharedUri, 'verify'], env);
    expect(said.stdout).toMatch(/^Deleted objects: s3:\/\/retention-\d+ keeps no versions of deleted objects/m);
    // A call the server refuses (here a bucket it does not have) is unknown, never "off".
    const refused = await storeRetention('s3://no-such-bucket/memory');
    expect(refused.state).toBe('unknown');
    expect(refused.message).toContain('GetBucketVersioning answered NoSuchBucket');
  }, 120_000);
});
