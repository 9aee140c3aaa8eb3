// One app process kept running the way a kubelet keeps a container running: when it exits
// without being asked to, it is started again after a back-off that doubles with each crash in a
// row up to a cap, and the count of crashes starts over once the process has stayed up a while.

/** Delays of `npm start`: 1 s, 2 s, 4 s … at most 30 s between restarts; 60 s up counts as healthy. */
export const RESTART_BACKOFF = { initialMs: 1000, maxMs: 30_000, healthyAfterMs: 60_000 };

/** The wait before restarting after `crashesInARow` (1, 2, …) crashes. */
export function restartDelay(crashesInARow, backoff = RESTART_BACKOFF) {
  return Math.min(backoff.initialMs * 2 ** (crashesInARow - 1), backoff.maxMs);
}

/**
 * @param {object} options
 * @param {string} options.name  used in log lines
 * @param {() => import('node:child_process').ChildProcess} options.spawnChild  starts one instance
 * @param {typeof RESTART_BACKOFF} [options.backoff]
 * @param {(line: string) => void} [options.log]
 */
export function superviseProcess({ name, spawnChild, backoff = RESTART_BACKOFF, log = (line) => console.error(line) }) {
  let child;
  let exited;
  let startedAt;
  let crashesInARow = 0;
  let restarting = false;
  let unhandledExit;
  let restartTimer;
  let stopping = false;
  let resolveFirstExit;
  const firstExit = new Promise((resolve) => (resolveFirstExit = resolve));

  const scheduleRestart = ({ code, signal }) => {
    crashesInARow = Date.now() - startedAt >= backoff.healthyAfterMs ? 1 : crashesInARow + 1;
    const delay = restartDelay(crashesInARow, backoff);
    log(
      `start: ${name} exited unexpectedly (code ${code}, signal ${signal}); restarting it in ` +
        `${delay} ms (crash ${crashesInARow} in a row)`,
    );
    restartTimer = setTimeout(launch, delay);
  };
  const launch = () => {
    const current = spawnChild();
    child = current;
    startedAt = Date.now();
    exited = new Promise((resolve) => current.once('exit', (code, signal) => resolve({ code, signal })));
    exited.then((exit) => {
      resolveFirstExit(exit);
      if (stopping) return;
      if (restarting) scheduleRestart(exit);
      else unhandledExit = exit;
    });
  };
  launch();

  return {
    name,
    /** The current instance. */
    get child() {
      return child;
    },
    /** Resolves with the first exit of the first instance, whatever caused it. */
    firstExit,
    /** From now on an exit that was not asked for starts the process again. */
    restartOnExit() {
      restarting = true;
      if (unhandledExit && !stopping) scheduleRestart(unhandledExit);
    },
    /** Sends `signal`, waits for the exit (SIGKILL after `killAfterMs`) and cancels any restart. */
    async stop(signal = 'SIGTERM', killAfterMs = 20_000) {
      stopping = true;
      clearTimeout(restartTimer);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const deadline = setTimeout(
        () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'),
        killAfterMs,
      );
      await exited;
      clearTimeout(deadline);
    },
  };
}
