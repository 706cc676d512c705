/** Where the engine reports what a person may want to know (a rebuilt record, background work). */
export interface Logger {
  warn(message: string): void;
  info(message: string): void;
}

export const silentLogger: Logger = { warn: () => {}, info: () => {} };
