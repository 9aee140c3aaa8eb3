// CPU time (user + system) that a process has used, read from /proc/<pid>/stat on Linux. The
// benchmark reads it before and after a measured window for every app process, and for the
// database servers on the same machine, to work out CPU milliseconds per request.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

// utime and stime count clock ticks (USER_HZ); 100 on every Linux this runs on, asked once.
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/**
 * utime + stime in ticks from one /proc/<pid>/stat line. The command name (field 2) is in
 * parentheses and may itself hold spaces or parentheses, so fields are counted after the last ')'.
 */
export function cpuTicksOfStatLine(line) {
  const fields = line
    .slice(line.lastIndexOf(')') + 2)
    .trim()
    .split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`not a /proc/<pid>/stat line: "${line.slice(0, 80)}"`);
  return ticks;
}

/** CPU milliseconds `pid` has used so far, or undefined when there is no such process. */
export function cpuTimeMs(pid) {
  let line;
  try {
    line = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return (cpuTicksOfStatLine(line) * 1000) / TICKS_PER_SECOND;
}

/** Processes on this machine whose command name is one of `names`: [{ name, pid }]. */
export function processesNamed(names) {
  const found = [];
  let entries = [];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return found; // not Linux
  }
  for (const pid of entries) {
    try {
      const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (names.includes(name)) found.push({ name, pid: Number(pid) });
    } catch {
      // exited while the list was read
    }
  }
  return found;
}

/**
 * CPU used by each group of processes between two moments: `groups` is [{ group, pid }];
 * `measure` runs the window. Returns { group: ms } summed over the group's processes, and a
 * process that exited (or was restarted under a new pid) during the window makes its group NaN.
 */
export async function cpuUsedDuring(groups, measure) {
  const before = groups.map(({ pid }) => cpuTimeMs(pid));
  const outcome = await measure();
  const usedMs = {};
  groups.forEach(({ group, pid }, i) => {
    const after = cpuTimeMs(pid);
    const used = before[i] === undefined || after === undefined ? NaN : after - before[i];
    usedMs[group] = (usedMs[group] ?? 0) + used;
  });
  return { usedMs, outcome };
}
