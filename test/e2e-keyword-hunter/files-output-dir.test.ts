/**
 * KeywordHunter's OutputDir under hostile names and file-system trouble:
 * - a file name taken from a URL never escapes OutputDir: `..`, `%2e%2e`,
 *   `%2f`, `%5c`, NUL, control characters and over-long names all give a
 *   plain file directly inside it (checked on src/sink/output-dir.ts over a
 *   generated set, and end to end: after the run the directory holds only
 *   regular files and nothing appeared beside it or in the working
 *   directory);
 * - a symlink planted under a page's name (index.html -> victim) is
 *   replaced, never followed, and so is one planted under a temporary name;
 * - a read-only OutputDir is refused before any request (exit 1); as root
 *   this is checked on a read-only tmpfs and as nobody on a 0555 directory,
 *   each skipped with the reason where it cannot be set up;
 * - a disk that fills up stops the run with one clear line and exit 1, the
 *   pages saved before it intact, no temporary file left.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { isCrawlerError } from '../../src/errors.js';
import { writeFileAtomic } from '../../src/sink/atomic-file.js';
import { fileNameForPath, MAX_NAME_BYTES, OutputDirSink } from '../../src/sink/output-dir.js';
import { startFaultServer } from '../helpers/fault-server.js';
import { asNobody, freeBytes, isRoot } from '../helpers/fs-faults.js';
import { khPages } from '../helpers/kh-harness.js';
import { page } from '../helpers/site-server.js';
import { runMeasured } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp, tmpfs } = useTempDirs();

/** Last path segments that try to escape or to make an unusable name. */
const HOSTILE_SEGMENTS = [
  '..', '.', '', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '%2e', '..%2f..%2fescape.html', '%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%5c..%5cwin.html', '%5c', '\\..\\x', 'a%00b.html', '%00', '%00.html', 'a\u0000b', '%0a%0d.html', '%1b[31m.html',
  '%C0%AF', '%c0%ae%c0%ae', '%ff%fe', '%', '%%', '%zz', '.hidden', '..hidden', '...', '....', '. .', '-rf', '~', '~root',
  ' ', '%20', 'con', 'NUL', 'a/b', '%2F', 'x'.repeat(300), 'x'.repeat(300) + '.html', '\u{1f600}'.repeat(120) + '.html',
  '\u{1f600}'.repeat(121), '\u00e9'.repeat(150) + '.averyveryveryverylongextension', `${'%e2%82%ac'.repeat(100)}.html`,
  '\u202e.html', '\ud800.html',
  // every byte value, percent-encoded, in the middle of a name
  ...Array.from({ length: 256 }, (_, b) => `a%${b.toString(16).padStart(2, '0')}b.html`),
];

describe('file names from URLs: always one plain name directly inside OutputDir', () => {
  test('fileNameForPath over hostile last segments: no separator, NUL or control character, never "." or "..", no hidden file, at most 200 bytes, well-formed', () => {
    const dir = '/some/output/dir';
    for (const seg of HOSTILE_SEGMENTS) {
      for (const path of [`/${seg}`, `/a/b/${seg}`, `/${seg}?q=/../../x`]) {
        const name = fileNameForPath(path.split('?')[0] as string);
        const what = `${JSON.stringify(path.slice(0, 60))} -> ${JSON.stringify(name.slice(0, 60))}`;
        assert.ok(name.length > 0, what);
        assert.ok(name !== '.' && name !== '..', what);
        assert.ok(!name.startsWith('.'), `no hidden file: ${what}`);
        assert.doesNotMatch(name, /[/\\\u0000-\u001f\u007f]/, what);
        assert.ok(Buffer.byteLength(name) <= MAX_NAME_BYTES, `${Buffer.byteLength(name)} bytes: ${what}`);
        assert.doesNotMatch(name, /[\ud800-\udfff]/u, `no lone surrogate (it would reach the disk as U+FFFD): ${what}`);
        const full = join(dir, name);
        assert.equal(dirname(full), dir, what);
        assert.equal(basename(full), name, what);
      }
    }
  });

  test('an over-long name keeps its extension and is cut at a character boundary', () => {
    assert.equal(fileNameForPath(`/${'x'.repeat(300)}.html`), `${'x'.repeat(MAX_NAME_BYTES - 5)}.html`);
    const emoji = fileNameForPath(`/${'\u{1f600}'.repeat(120)}.html`);
    assert.equal(emoji, `${'\u{1f600}'.repeat(48)}.html`);
  });

  test('OutputDirSink: pages with the same name never overwrite each other, whatever the case', async () => {
    const dir = temp('files-out-sink-');
    const sink = new OutputDirSink(dir);
    const names: string[] = [];
    for (let i = 0; i < 20; i++) names.push(await sink.save(i % 2 === 0 ? '/a/index.html' : '/b/INDEX.HTML', Buffer.from(`page ${i}`)));
    assert.equal(new Set(names.map((n) => n.toLowerCase())).size, 20, names.join(' '));
    const bodies = readdirSync(dir).map((n) => readFileSync(join(dir, n), 'utf8')).sort();
    assert.deepEqual(bodies, Array.from({ length: 20 }, (_, i) => `page ${i}`).sort());
  });

  test('OutputDirSink: a file that was there before the run (a user\'s, an earlier run\'s) is never overwritten; the page takes the next free name', async () => {
    const dir = temp('files-out-theirs-');
    writeFileSync(join(dir, 'index.html'), 'the user\'s own index\n');
    writeFileSync(join(dir, 'index-2.html'), 'an earlier run\'s page\n');
    writeFileSync(join(dir, '.tmp-notes'), 'mine\n');
    const sink = new OutputDirSink(dir);
    assert.equal(await sink.save('/', Buffer.from('new index')), 'index-3.html');
    assert.equal(await sink.save('/docs/', Buffer.from('another index')), 'index-4.html');
    assert.equal(readFileSync(join(dir, 'index.html'), 'utf8'), 'the user\'s own index\n');
    assert.equal(readFileSync(join(dir, 'index-2.html'), 'utf8'), 'an earlier run\'s page\n');
    assert.equal(readFileSync(join(dir, 'index-3.html'), 'utf8'), 'new index');
    assert.deepEqual(readdirSync(dir).sort(), ['.tmp-notes', 'index-2.html', 'index-3.html', 'index-4.html', 'index.html'], 'no temporary file left, the user\'s kept');
  });

  test('end to end: KeywordHunter saves every hostile page as a regular file directly inside OutputDir, nothing beside it', async () => {
    const mark = `esc${randomBytes(4).toString('hex')}`;
    const srv = await startFaultServer();
    try {
      const links = [
        `/h/..%2f..%2f${mark}-1.html`,
        `/h/%2e%2e/%2e%2e/${mark}-2.html`,
        `/h/..%5c..%5c${mark}-3.html`,
        `/h/%2fetc%2f${mark}-4`,
        `/h/%2F..%2F..%2F${mark}-5`,
        `/h/.${mark}-6`,
        `/h/${mark}-7%00.html`,
        `/h/%2e%2e`, `/h/%2E%2E`, `/h/.%2e`, `/h/%2e`, `/h/`, `/h/a%00b.html`, `/h/%0a${mark}-8`,
        `/h/${'n'.repeat(300)}.html`, `/h/${'%F0%9F%98%80'.repeat(80)}.html`, `/h/-rf`, `/h/con`,
        `/h/${mark}-9.html?x=/../../y`,
        `../../../../h/${mark}-10.html`,
      ];
      srv.page('/start', page('start', links));
      srv.fallback = (target) => (target.startsWith('/h/') ? { body: `BODY ${target}\n` } : undefined);
      const root = temp('files-out-e2e-');
      const out = join(root, 'out');
      const cwd = join(root, 'cwd');
      mkdirSync(cwd);
      const r = await runMeasured('KeywordHunter', [srv.url('/start'), 'NO-SUCH-KEYWORD', out], { cwd });
      assert.equal(r.code, 0, r.stderr);
      const ok = khPages(r.stdout).filter((p) => p.status === 200);
      const served = srv.requests.filter((q) => q.target.startsWith('/h/'));
      assert.ok(served.length >= links.length - 3, `${served.length} hostile pages served`);
      assert.deepEqual(readdirSync(root).sort(), ['cwd', 'out'], 'nothing beside OutputDir');
      assert.deepEqual(readdirSync(cwd), [], 'nothing in the working directory');
      const files = readdirSync(out);
      assert.equal(files.length, ok.length, `one file per page answered 200: ${files.join(' | ')}`);
      for (const f of files) assert.ok(lstatSync(join(out, f)).isFile(), `${JSON.stringify(f)} is a regular file`);
      const bodies = new Set(files.map((f) => readFileSync(join(out, f), 'utf8')));
      for (const q of served) assert.ok(bodies.has(`BODY ${q.target}\n`), `the page ${q.target} was saved`);
      for (const place of [tmpdir(), dirname(root), '/', process.cwd()]) {
        assert.deepEqual(readdirSync(place).filter((n) => n.includes(mark)), [], `nothing named after the URLs in ${place}`);
      }
    } finally {
      await srv.close();
    }
  });
});

describe('OutputDir: planted symlinks are never followed, never replaced', () => {
  test('index.html -> victim, page.html -> absolute victim, new.html -> dangling: victims and links unchanged, pages saved beside them as regular files', async () => {
    const srv = await startFaultServer();
    try {
      const index = page('index', ['/page.html', '/new.html']);
      srv.page('/', index);
      srv.page('/page.html', 'PAGE\n');
      srv.page('/new.html', 'NEW\n');
      const root = temp('files-out-symlink-');
      const out = join(root, 'out');
      mkdirSync(out);
      writeFileSync(join(root, 'victim'), 'VICTIM\n');
      writeFileSync(join(root, 'victim2'), 'VICTIM2\n');
      symlinkSync('../victim', join(out, 'index.html'));
      symlinkSync(join(root, 'victim2'), join(out, 'page.html'));
      symlinkSync(join(root, 'created-through-link'), join(out, 'new.html'));
      const r = await runMeasured('KeywordHunter', [srv.url('/'), 'NO-SUCH-KEYWORD', out]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(join(root, 'victim'), 'utf8'), 'VICTIM\n');
      assert.equal(readFileSync(join(root, 'victim2'), 'utf8'), 'VICTIM2\n');
      assert.ok(!existsSync(join(root, 'created-through-link')), 'nothing created through the dangling link');
      // Files that were there before the run are not ours: the pages take the next free names.
      for (const name of ['index.html', 'page.html', 'new.html']) assert.ok(lstatSync(join(out, name)).isSymbolicLink(), `${name} is still the link planted there`);
      for (const [name, body] of [['index-2.html', index], ['page-2.html', 'PAGE\n'], ['new-2.html', 'NEW\n']] as const) {
        assert.ok(lstatSync(join(out, name)).isFile(), `${name} is a regular file`);
        assert.equal(readFileSync(join(out, name), 'utf8'), body);
      }
    } finally {
      await srv.close();
    }
  });

  test('symlinks planted under the temporary names the next writes would use: never followed (the write fails cleanly or goes around them)', async () => {
    const root = temp('files-out-tmpname-');
    const out = join(root, 'out');
    mkdirSync(out);
    writeFileSync(join(root, 'victim'), 'VICTIM\n');
    // The temporary name is `.tmp-PID-N-NAME` with a per-process counter N: plant the next thousand.
    for (let n = 1; n <= 1000; n++) symlinkSync(join(root, 'victim'), join(out, `.tmp-${process.pid}-${n}-page.html`));
    let outcome: string;
    try {
      await writeFileAtomic(out, 'page.html', [Buffer.from('PAGE\n')]);
      outcome = 'written';
    } catch (err) {
      assert.ok(isCrawlerError(err, 'ERR_WRITE'), String(err));
      assert.match(err.message, /page\.html: EEXIST/);
      outcome = 'refused';
    }
    assert.equal(readFileSync(join(root, 'victim'), 'utf8'), 'VICTIM\n', `the victim is unchanged (${outcome})`);
    if (outcome === 'written') assert.ok(lstatSync(join(out, 'page.html')).isFile());
    else assert.ok(!existsSync(join(out, 'page.html')));
  });
});

describe('OutputDir: a read-only directory is refused before any request', () => {
  async function expectRefused(out: string, wrap: string[] = []): Promise<void> {
    const srv = await startFaultServer();
    try {
      srv.page('/', page('index'));
      const r = await runMeasured('KeywordHunter', [srv.url('/'), 'NO-SUCH-KEYWORD', out], { wrap });
      assert.equal(r.code, 1, `exit 1 (stdout: ${r.stdout}, stderr: ${r.stderr})`);
      assert.equal(r.stdout, '', 'no PAGE line: nothing was requested');
      assert.equal(srv.requests.length, 0, 'no request');
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0] as string, /^KeywordHunter: OutputDir ".*": .*not writable/);
    } finally {
      await srv.close();
    }
  }

  test('on a read-only tmpfs (EROFS, binding root too)', async (t) => {
    const out = tmpfs(t, '64k', { prefix: 'files-out-ro-', extra: ['ro'] });
    if (out === undefined) return;
    await expectRefused(out);
  });

  test('chmod 0555 (run as nobody when the tests run as root)', async (t) => {
    const user = isRoot() ? asNobody() : { wrap: [] as string[] };
    if ('why' in user) {
      t.skip(`chmod 0555 does not bind root and ${user.why}`);
      return;
    }
    const root = temp('files-out-0555-');
    chmodSync(root, 0o755);
    const out = join(root, 'out');
    mkdirSync(out);
    chmodSync(out, 0o555);
    try {
      await expectRefused(out, user.wrap);
      assert.deepEqual(readdirSync(out), []);
    } finally {
      chmodSync(out, 0o755);
    }
  });
});

describe('OutputDir: the disk fills up', () => {
  test('the first failed save stops the run: one clear line, exit 1, earlier pages intact, no temporary file', async (t) => {
    const out = tmpfs(t, '4m', { prefix: 'files-out-full-' });
    if (out === undefined) return;
    const srv = await startFaultServer();
    try {
      const bodies: string[] = [];
      for (let i = 0; i < 6; i++) {
        const body = page(`c${i}`, i < 5 ? [`/c${i + 1}.html`] : [], 'z'.repeat(200 * 1024));
        bodies.push(body);
        srv.page(`/c${i}.html`, body);
      }
      // Room for two pages (53 tmpfs pages of 4 KiB each, with slack), not for a third.
      void srv.waitFor('/robots.txt', 20_000).then((seen) => {
        if (seen) writeFileSync(join(out, 'filler.not-a-page'), Buffer.alloc(Math.max(0, freeBytes(out) - (2 * 53 * 4096 + 100 * 1024))));
      });
      const r = await runMeasured('KeywordHunter', [srv.url('/c0.html'), 'NO-SUCH-KEYWORD', out]);
      assert.equal(r.code, 1, `exit 1 (stderr: ${r.stderr})`);
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0] as string, /^KeywordHunter: the disk is full: cannot write .*c2\.html \(ENOSPC\)$/);
      assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
      assert.equal(readFileSync(join(out, 'c0.html'), 'utf8'), bodies[0]);
      assert.equal(readFileSync(join(out, 'c1.html'), 'utf8'), bodies[1]);
      assert.deepEqual(readdirSync(out).sort(), ['c0.html', 'c1.html', 'filler.not-a-page'], 'no partial page, no temporary file');
      assert.equal(srv.requests.filter((q) => q.target === '/c3.html').length, 0, 'no request after the failure');
    } finally {
      await srv.close();
    }
  });
});
