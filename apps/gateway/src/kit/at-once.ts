/**
 * A bound on how many requests of one route this process answers at once (decision 1348). Past it a request is
 * answered at once with the documented 503 and Retry-After: 1, before it costs a store read, rather than queued for
 * seconds behind the others; the client sends the same request again a second later.
 */
import { AppError } from '@storefront/errors';

export function atMostAtOnce<A extends unknown[], R>(
  max: number,
  what: string,
  answer: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  let answering = 0;
  return async (...args: A) => {
    if (answering >= max)
      throw new AppError(
        'unavailable',
        'service_unavailable',
        `The shop is answering as many ${what} as it can at this moment; send the same request again in a second`,
        1,
      );
    answering += 1;
    try {
      return await answer(...args);
    } finally {
      answering -= 1;
    }
  };
}
