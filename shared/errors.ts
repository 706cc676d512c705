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
  | 'read_only'
  | 'disk_full'
  | 'cancelled'
  | 'forbidden'
  | 'internal';

export interface ErrorInfo {
  code: ErrorCode;
  message: string;
}
