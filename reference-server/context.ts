// What every route plugin shares: the mode, the active fault, the clock and the in-memory state.

import type { TokenStore } from './auth/tokens';
import type { Store } from './data/store';
import type { Faults } from './faults';

export type Mode = 'cloud' | 'sandbox';

export interface AppContext {
  readonly mode: Mode;
  readonly faults: Faults;
  /** Epoch ms from the app's clock (the `now` option). */
  readonly now: () => number;
  readonly store: Store;
  readonly tokens: TokenStore;
}
