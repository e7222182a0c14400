/**
 * The tables of the READMEs and of docs/ render on GitHub: outside a
 * code fence, a run of lines starting with `|` is one table, which needs a
 * blank line before it, its header row, then a delimiter row (`| --- |`),
 * and rows of the header's number of cells (GitHub drops the cells past it
 * and pads a short row). A blank line inside a table ends it, and the rows
 * after it render as raw pipes: the fault this test was written for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/conformance.js';

const DOCS = ['README.md', 'bench/README.md', 'docs/performance.md', 'docs/page-cpu.md', 'docs/archive.md', 'docs/pushback.md', 'test/README.md', 'test/fixtures/conformance/README.md'];
/** Files with no table yet, checked all the same so that a table added to one renders. */
const DOCS_WITHOUT_TABLES = ['docs/report.md', 'docs/resume-refresh.md', 'docs/distributed.md'];

test('every file in docs/ is checked', () => {
  const docs = readdirSync(join(PROJECT_ROOT, 'docs')).filter((f) => f.endsWith('.md'));
  assert.deepEqual(docs.map((f) => `docs/${f}`).filter((f) => !DOCS.includes(f) && !DOCS_WITHOUT_TABLES.includes(f)), []);
});
const DELIMITER = /^\|(?:\s*:?-+:?\s*\|)+\s*$/;

/** A row's cells: split at each `|` that is not escaped (inside code spans too, as GitHub does). */
function cells(row: string): number {
  const inner = row.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/).length;
}

/** What is wrong with the tables of `text`, one line each (`LINE: what`); empty when every table renders. */
function tableFaults(text: string): string[] {
  const lines = text.split('\n');
  const faults: string[] = [];
  let fence: string | undefined;
  let table: number[] = [];
  const close = (): void => {
    if (table.length === 0) return;
    const [head, delimiter] = table.map((i) => lines[i] as string);
    const first = (table[0] as number) + 1;
    if (delimiter === undefined || !DELIMITER.test(delimiter)) faults.push(`${first}: rows starting with "|" without a header and a delimiter row (a blank line inside a table?)`);
    else {
      const want = cells(head as string);
      if (cells(delimiter) !== want) faults.push(`${first + 1}: the delimiter row has ${cells(delimiter)} cells, the header ${want}`);
      for (const i of table.slice(2)) if (cells(lines[i] as string) !== want) faults.push(`${i + 1}: ${cells(lines[i] as string)} cells, the header has ${want}`);
    }
    const before = lines[(table[0] as number) - 1];
    if (before !== undefined && before.trim() !== '') faults.push(`${first}: no blank line before the table`);
    table = [];
  };
  lines.forEach((line, i) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      return;
    }
    if (marker !== undefined) {
      close();
      fence = marker;
      return;
    }
    if (line.startsWith('|')) table.push(i);
    else close();
  });
  close();
  return faults;
}

test('the check finds a table broken by a blank line, a missing delimiter, a row of the wrong width and a table glued to text', () => {
  const good = '| a | b |\n| --- | --- |\n| 1 | `x \\| y` |\n';
  assert.deepEqual(tableFaults(good), []);
  assert.deepEqual(tableFaults('| a | b |\n| --- | --- |\n| 1 | 2 |\n\n| 3 | 4 |\n'), ['5: rows starting with "|" without a header and a delimiter row (a blank line inside a table?)']);
  assert.deepEqual(tableFaults('| a | b |\n| 1 | 2 |\n'), ['1: rows starting with "|" without a header and a delimiter row (a blank line inside a table?)']);
  assert.deepEqual(tableFaults('| a | b |\n| --- | --- |\n| 1 | 2 | 3 |\n| `a|b` | c |\n'), ['3: 3 cells, the header has 2', '4: 3 cells, the header has 2']);
  assert.deepEqual(tableFaults(`text\n${good}`), ['2: no blank line before the table']);
  assert.deepEqual(tableFaults('```\n| not | a table\n```\n'), [], 'inside a code fence');
});

for (const doc of [...DOCS, ...DOCS_WITHOUT_TABLES]) {
  test(`every table of ${doc} renders`, () => {
    const text = readFileSync(join(PROJECT_ROOT, doc), 'utf8');
    if (DOCS.includes(doc)) assert.ok(text.includes('\n| --- |'), `${doc} has tables`);
    assert.deepEqual(tableFaults(text), []);
  });
}
