/**
 * Shares one read among callers that arrive together without ever answering a caller from a
 * read that started before it asked: while a read runs, newcomers share the next one, which
 * starts as soon as the running one ends. A burst of any size costs at most two reads in flight.
 */
export function coalesced<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;

  const start = (): Promise<T> => {
    const current = read();
    running = current;
    const clear = () => {
      if (running === current) running = undefined;
    };
    current.then(clear, clear);
    return current;
  };

  return () => {
    if (!running) return start();
    const settled = () => undefined;
    queued ??= running.then(settled, settled).then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
}
