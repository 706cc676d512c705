/**
 * The names of the IPC channels and events, without their schemas: what the preload exposes, one
 * function per name. The schemas in ipc.ts are typed by this list, so a channel cannot be added to
 * one without the other.
 */
export const CHANNEL_NAMES = [
  'sessions:list',
  'sessions:show',
  'sessions:history',
  'chunks:inspect',
  'files:stage',
  'import:preview',
  'import:run',
  'import:cancel',
  'search:query',
  'store:verify',
  'sessions:forget',
  'duplicates:list',
  'duplicates:dismiss',
  'settings:get',
  'app:openLogFolder',
  'settings:set',
  'sources:list',
  'sources:set',
  'sources:sync',
  'store:writers',
  'store:change',
  'assistants:list',
  'assistants:connect',
] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

export const EVENT_NAMES = ['onSaveProgress', 'onModelDownload'] as const;
