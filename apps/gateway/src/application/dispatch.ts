/**
 * When an order placed now would leave and arrive, by the gateway's clock and calendar (docs/decisions/1170): the
 * words the product, basket and checkout pages show, and the dates a quote states.
 */
import { dispatchPromise, orderWindowWords, type DispatchPromise } from '@storefront/dispatch-calendar';
import type { GatewayContext } from '../context';

export interface DispatchNow {
  promise: DispatchPromise;
  /** "Order within 2 h 13 min for dispatch today" or "Order now for dispatch on Monday 1 December". */
  words: string;
}

export function dispatchNow({ config, now }: Pick<GatewayContext, 'config' | 'now'>): DispatchNow {
  const at = now();
  const promise = dispatchPromise(at, config.dispatchCalendar);
  return { promise, words: orderWindowWords(promise, at) };
}
