// A test reporter for `node scripts/run-tests.js --times`: at the end of a lane,
// the 20 files whose tests took longest, by the sum of their top-level tests'
// durations (a file's tests, not its start-up), slowest first.
//   <seconds> s  <tests>  <file>
const SHOWN = 20;

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* fileTimes(source) {
  /** @type {Map<string, { ms: number, tests: number }>} */
  const files = new Map();
  for await (const { type, data } of source) {
    if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0 && typeof data.file === 'string') {
      const f = files.get(data.file) ?? { ms: 0, tests: 0 };
      f.ms += data.details?.duration_ms ?? 0;
      f.tests++;
      files.set(data.file, f);
    }
  }
  const slowest = [...files].sort((a, b) => b[1].ms - a[1].ms).slice(0, SHOWN);
  yield `the ${slowest.length} slowest files of ${files.size}:\n`;
  for (const [file, f] of slowest) yield `${(f.ms / 1000).toFixed(1).padStart(7)} s ${String(f.tests).padStart(4)}  ${file.replace(/^.*?\/dist\//, '')}\n`;
}
