/**
 * Files the person dropped or picked are handed to the host without being read into the page: the
 * desktop app stages them by path (through the preload; the page never names a path), web mode
 * streams each as a request body. Only the in-memory demo gets the bytes, as base64 with `files:stage`.
 */
import { MAX_INLINE_STAGED_BYTES, MAX_STAGED_BYTES, MemoryApiError, type MemoryApi } from '../../shared/ipc.js';

function readAsArrayBuffer(file: Blob): Promise<ArrayBuffer> {
  if (typeof file.arrayBuffer === 'function') return file.arrayBuffer();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as ArrayBuffer);
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsArrayBuffer(file);
  });
}

/** Base64 of bytes, built in slices so a large export does not overflow the argument list of `fromCharCode`. */
export function base64FromBytes(bytes: Uint8Array): string {
  const SLICE = 0x8000;
  const parts: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += SLICE) {
    parts.push(String.fromCharCode(...bytes.subarray(offset, offset + SLICE)));
  }
  return btoa(parts.join(''));
}

export async function readFileBase64(file: File): Promise<string> {
  return base64FromBytes(new Uint8Array(await readAsArrayBuffer(file)));
}

export function isTooLarge(file: File, api?: MemoryApi): boolean {
  return file.size > (api && !api.uploadFile ? MAX_INLINE_STAGED_BYTES : MAX_STAGED_BYTES);
}

/** Reads one file and stages it; `onSending` fires between reading and sending. */
export async function stageFile(api: MemoryApi, file: File, onSending?: () => void): Promise<{ fileId: string; name: string; size: number }> {
  if (isTooLarge(file, api)) throw new MemoryApiError('invalid_input', `${file.name} is larger than the ${(api.uploadFile ? MAX_STAGED_BYTES : MAX_INLINE_STAGED_BYTES) / 1024 / 1024} MB a file may have.`);
  if (api.uploadFile) {
    onSending?.();
    return api.uploadFile(file);
  }
  let dataBase64: string;
  try {
    dataBase64 = await readFileBase64(file);
  } catch (error) {
    throw new MemoryApiError('invalid_input', `${file.name} could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  onSending?.();
  return api['files:stage']({ name: file.name.slice(0, 255) || 'file', dataBase64 });
}

/** The files of a drag, or none when it carries something else (text, a link). */
export function filesOf(transfer: DataTransfer | null): File[] {
  if (!transfer) return [];
  return Array.from(transfer.files ?? []);
}

export function draggingFiles(transfer: DataTransfer | null): boolean {
  if (!transfer) return false;
  return Array.from(transfer.types ?? []).includes('Files');
}
