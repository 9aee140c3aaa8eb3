/** A component's ops command line run in-process, as a test's operator: its exit code and its `--json` answer. */
import { runOps, type OpsProgram } from '@storefront/lifecycle';
import type { TestStores } from './stores';

/**
 * The env an ops command sees on the test's stores: DATA_DIR, and the component's own MySQL database when the backend
 * has one.
 */
export function opsEnvFor(
  stores: TestStores,
  service: string,
  base: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  const mysqlUrl = stores.mysqlUrlFor(service);
  return {
    DATA_DIR: stores.dataDir,
    ...base,
    ...(mysqlUrl ? { [`${service.toUpperCase()}_MYSQL_URL`]: mysqlUrl } : {}),
  };
}

/** Runs `<program> <args> --json` (as `actor`, when named) and parses the answer's last line. */
export async function runOpsJson<T = Record<string, unknown>>(
  program: OpsProgram,
  args: string[],
  env: Record<string, string | undefined>,
  actor?: string,
): Promise<{ code: number; json: T; stdout: string }> {
  let stdout = '';
  const code = await runOps(
    program,
    [...args, '--json', ...(actor ? ['--actor', actor] : [])],
    env,
    { stdout: (text) => (stdout += text), stderr: () => undefined },
    { write: () => undefined },
  );
  return { code, json: JSON.parse(stdout.trim().split('\n').at(-1)!) as T, stdout };
}
