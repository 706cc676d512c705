/**
 * Files dropped into the app, waiting to be previewed and imported. No file crosses the boundary
 * as one string: the desktop app names a dropped file by its path (Electron's
 * `webUtils.getPathForFile`, in the preload) and it is read where it lies; web mode streams the
 * request body to a file here, counting bytes as they come, so the size limit holds before the disk
 * fills. A copy made here is deleted after the import that used it, or its cancel, and with the host.
 *
 * Copies are unredacted exports, so they live under the data folder (`<data>/staging`), never in the
 * OS temp folder where other people's tools look. Each process stages into a folder named by its
 * pid; a folder whose process is gone (killed before it could clean up) is swept at the next start.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, promises as fs, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MAX_INLINE_STAGED_BYTES, MAX_STAGED_BYTES, type ResponseMap } from '../../shared/ipc.js';
import { EngineError } from '../engine/errors.js';

export interface StagedFile {
  name: string;
  path: string;
  size: number;
  /** A copy made here (deleted after its import), not the person's own file. */
  copy: boolean;
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/**
 * The name a staged file gets on disk: the base name only (the UI chooses the label, never where
 * the file goes), without characters file systems refuse, and at most 200 bytes.
 */
export function stagedFileName(name: string): string {
  let base = path.basename(name.replace(/\\/g, '/')).replace(/[\u0000-\u001f<>:"/\\|?*]/g, '_').trim();
  if (base === '' || base === '.' || base === '..') base = 'transcript';
  while (Buffer.byteLength(base) > 200) {
    const ext = path.extname(base).slice(0, 16);
    base = `${Array.from(base.slice(0, base.length - ext.length)).slice(0, -8).join('')}${ext}`;
  }
  return base;
}

/** A file past the size limit: web mode answers 413 for it. */
export class FileTooLargeError extends EngineError {
  constructor(message: string) {
    super('invalid_request', message);
  }
}

/** The folder under a data folder where dropped files are staged. */
export function stagingDirOf(dataDir: string): string {
  return path.join(dataDir, 'staging');
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class StagingArea {
  private readonly files = new Map<string, StagedFile>();
  private dir: string | null = null;
  /** Every folder this process staged into (removed on close). */
  private readonly dirs = new Set<string>();

  /** `parentDir`: where this process's folder goes (a function when the data folder can change). */
  constructor(private readonly parentDir: string | (() => string)) {}

  /**
   * Deletes what processes that are gone left staged (their folders are named `<pid>-...`); returns
   * the folders removed. Folders of running processes, this one's included, stay.
   */
  sweep(): string[] {
    const parent = this.parent();
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      return [];
    }
    const removed: string[] = [];
    for (const name of names) {
      const pid = Number(/^(\d+)-/.exec(name)?.[1]);
      if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) continue;
      rmSync(path.join(parent, name), { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  }

  /** A file given whole (base64 over IPC or JSON): the in-memory demo and small files. */
  async stageBytes(name: string, bytes: Buffer): Promise<ResponseMap['files:stage']> {
    if (bytes.length > MAX_INLINE_STAGED_BYTES) throw new FileTooLargeError( `${name}: larger than the ${mb(MAX_INLINE_STAGED_BYTES)} a file sent whole may have; drop it on the app instead`);
    const { fileId, file, safeName } = await this.newFile(name);
    await fs.writeFile(file, bytes);
    return this.register(fileId, { name: safeName, path: file, size: bytes.length, copy: true });
  }

  /**
   * A file streamed in (web mode's upload): written as it arrives; past `limit` bytes the upload is
   * refused and what was written is deleted.
   */
  async stageStream(name: string, body: Readable, limit = MAX_STAGED_BYTES): Promise<ResponseMap['files:stage']> {
    const { fileId, file, safeName } = await this.newFile(name);
    let size = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > limit) done(new FileTooLargeError(`${safeName}: larger than the ${mb(limit)} a file may have`));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(file));
    } catch (error) {
      await fs.rm(path.dirname(file), { recursive: true, force: true });
      if (error instanceof EngineError) throw error;
      throw new EngineError('invalid_request', `${safeName}: the upload broke off (${error instanceof Error ? error.message : String(error)})`);
    }
    return this.register(fileId, { name: safeName, path: file, size, copy: true });
  }

  /** A file the person dropped on the desktop app, read where it lies (nothing is copied). */
  async stagePath(filePath: string): Promise<ResponseMap['files:stage']> {
    if (!path.isAbsolute(filePath)) throw new EngineError('invalid_request', `${filePath}: not an absolute path`);
    let stats;
    try {
      stats = await fs.stat(filePath);
    } catch (error) {
      throw new EngineError('not_found', `${filePath} could not be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    if (!stats.isFile()) throw new EngineError('invalid_request', `${filePath} is not a file`);
    if (stats.size > MAX_STAGED_BYTES) throw new FileTooLargeError( `${path.basename(filePath)}: larger than the ${mb(MAX_STAGED_BYTES)} a file may have`);
    return this.register(randomUUID(), { name: stagedFileName(filePath), path: filePath, size: stats.size, copy: false });
  }

  get(fileId: string): StagedFile {
    const file = this.files.get(fileId);
    if (!file) throw new EngineError('not_found', `no staged file ${fileId}; drop the file again`);
    return file;
  }

  /** After an import (or its cancel): the files are forgotten here, and copies made here deleted. */
  async release(fileIds: readonly string[]): Promise<void> {
    for (const fileId of fileIds) {
      const file = this.files.get(fileId);
      if (!file) continue;
      this.files.delete(fileId);
      if (file.copy) await fs.rm(path.dirname(file.path), { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    this.files.clear();
    for (const dir of this.dirs) await fs.rm(dir, { recursive: true, force: true });
    this.dirs.clear();
    this.dir = null;
  }

  private async newFile(name: string): Promise<{ fileId: string; file: string; safeName: string }> {
    // A folder of this process's own under the data folder (a new one after the data folder moved).
    if (this.dir === null || path.dirname(this.dir) !== path.resolve(this.parent())) {
      await fs.mkdir(this.parent(), { recursive: true });
      this.dir = await fs.mkdtemp(path.join(path.resolve(this.parent()), `${process.pid}-`));
      this.dirs.add(this.dir);
    }
    const fileId = randomUUID();
    // Keep only the base name: the UI chooses the label, never where the file goes.
    const safeName = stagedFileName(name);
    const dir = path.join(this.dir, fileId);
    await fs.mkdir(dir);
    return { fileId, file: path.join(dir, safeName), safeName };
  }

  private parent(): string {
    return typeof this.parentDir === 'string' ? this.parentDir : this.parentDir();
  }

  private register(fileId: string, file: StagedFile): ResponseMap['files:stage'] {
    this.files.set(fileId, file);
    return { fileId, name: file.name, size: file.size };
  }
}
