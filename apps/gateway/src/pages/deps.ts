import type { GatewayContext } from '../context';
import type { ShopReader } from '../application/shop';
import type { PageRoutes } from '../kit/respond';

export { callerOf } from '../kit/caller';

/** What each page module's routes are given. */
export interface PageDeps extends PageRoutes {
  context: GatewayContext;
  readShop: ShopReader;
}
