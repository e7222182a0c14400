/**
 * `npm run demo`: serves a small built-in site on loopback, crawls it with
 * ./crawler into ./demo-pages (depth 3, 0.2 s delay so it takes seconds),
 * then says where the pages went and where its report is
 * (./demo-report.html, one self-contained page to open in a browser) and
 * its web archive (./demo-archive.wacz, with the WARC and its index beside it).
 * Nothing leaves this machine.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEMO_SEED_PATH, startDemoSite } from './demo-site.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

startDemoSite().then((site) => {
  const pageDir = join(root, 'demo-pages');
  mkdirSync(pageDir, { recursive: true });
  const seed = `${site.origin}${DEMO_SEED_PATH}`;
  const report = join(root, 'demo-report.html');
  process.stderr.write(`demo: serving the built-in demo site at ${site.origin}/\n`);
  process.stderr.write(`demo: ./crawler --delay 0.2 --report demo-report.html --wacz demo-archive.wacz ${seed} demo-pages 3\n\n`);
  // Relative names, from the repository's root: the report shows the command as a user would type it.
  const child = spawn(join(root, 'crawler'), ['--delay', '0.2', '--report', 'demo-report.html', '--wacz', 'demo-archive.wacz', seed, 'demo-pages', '3'], { stdio: 'inherit', cwd: root });
  child.on('close', (code) => {
    void site.close();
    const files = readdirSync(pageDir).filter((f) => /^[0-9]+$/.test(f));
    process.stderr.write(`\ndemo: the crawl saved ${files.length} pages in ${pageDir} (files 1..${files.length}: URL, depth, then the HTML).\n`);
    process.stderr.write(`demo: look at one with: head -5 ${join('demo-pages', '1')}\n`);
    process.stderr.write(`demo: the crawl's report (timeline, statuses, robots.txt, the tree): open ${report} in a browser\n`);
    process.stderr.write(`demo: the web archive: demo-archive.warc.gz (WARC/1.1), its index demo-archive.cdxj, and demo-archive.wacz to open in ReplayWeb.page\n`);
    process.exit(code ?? 1);
  });
});
