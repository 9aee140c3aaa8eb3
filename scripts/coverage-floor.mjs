#!/usr/bin/env node
// Holds the whole suite's coverage (coverage/coverage-summary.json, written by c8 under
// `npm test -- --coverage`) to coverage-floor.json. The floor only rises: a run below it fails,
// and a run more than a point above it fails too, asking for the floor to be raised to what the
// run measured, so a gain cannot be lost again unnoticed.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const FLOOR_FILE = 'coverage-floor.json';
const HEADROOM_POINTS = 1;
// Timing-dependent paths (retries, races the tests provoke) move a run by a few tenths.
const JITTER_POINTS = 0.5;
const suggestedFloor = (measured) => Math.floor((measured - JITTER_POINTS) * 10) / 10;

const floor = JSON.parse(readFileSync(path.join(ROOT, FLOOR_FILE), 'utf8'));
const { total } = JSON.parse(readFileSync(path.join(ROOT, 'coverage', 'coverage-summary.json'), 'utf8'));

const problems = [];
for (const [metric, minimum] of Object.entries(floor)) {
  const measured = total[metric]?.pct;
  if (typeof measured !== 'number') problems.push(`${metric}: c8 reported no percentage`);
  else if (measured < minimum)
    problems.push(
      `${metric}: ${measured}% is below the floor of ${minimum}%; cover the code this change added or changed`,
    );
  else if (measured > minimum + HEADROOM_POINTS)
    problems.push(
      `${metric}: ${measured}% is more than ${HEADROOM_POINTS} point above the floor of ${minimum}%; ` +
        `raise it in ${FLOOR_FILE} to ${suggestedFloor(measured)}`,
    );
}
if (problems.length > 0) {
  console.error(`coverage: ${problems.join('\ncoverage: ')}`);
  process.exit(1);
}
console.log(
  `coverage: ${Object.keys(floor)
    .map((metric) => `${metric} ${total[metric].pct}%`)
    .join(', ')}; floor held (${FLOOR_FILE})`,
);
