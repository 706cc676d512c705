/** Error codes the UI and the CLI can act on. Messages are for people. */
export type ErrorCode =
  | 'invalid_input'
  | 'invalid_request'
  | 'unknown_format'
  | 'not_found'
  | 'model_mismatch'
  | 'model_unavailable'
  | 'locked'
  | 'store_damaged'
  | 'unsafe_store'
  | 'read_only'
  | 'disk_full'
  | 'cancelled'
  | 'forbidden'
  | 'internal';

export interface ErrorInfo {
  code: ErrorCode;
  message: string;
}

/**
 * An error with a code the caller can act on and a one-line message a person can read. Defined
 * here, not in the engine, because the embedder throws it too and must not import the engine.
 */
export class EngineError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EngineError';
  }

  toInfo(): ErrorInfo {
    return { code: this.code, message: this.message };
  }
}
