/**
 * The handlers of the channels, typed by the contract in shared/ipc.ts. The host's parts each answer
 * a few channels (`HandlersOf<...>`); memoryHost.ts puts them together into one `Handlers`, which
 * does not compile while a channel lacks its handler or a handler's types differ from the contract.
 */
import type { Channel, RequestMap, ResponseMap } from '../../shared/ipc.js';

export type Handlers = { [C in Channel]: (request: RequestMap[C]) => Promise<ResponseMap[C]> };

/** The handlers of some of the channels. */
export type HandlersOf<C extends Channel> = Pick<Handlers, C>;
