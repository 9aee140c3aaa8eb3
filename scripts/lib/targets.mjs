// How the benchmark and the Lighthouse measurement judge a figure: one line printed per target,
// met or MISSED, and the verdict kept in the results they write to bench-results.json.

/** A verdict(label, value, target, unit, met) that prints and records into `results.targets`. */
export function verdictInto(results) {
  results.targets ??= {};
  return (label, value, target, unit, met) => {
    results.targets[label] = { value, target, met };
    console.log(
      `target ${label.padEnd(28)} ${String(value).padStart(8)}${unit} (target ${target}${unit}: ` +
        `${met ? 'met' : 'MISSED'})`,
    );
  };
}
