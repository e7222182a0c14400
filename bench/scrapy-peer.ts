/**
 * Scrapy, the broad section's peer (issue 30): a spider that follows every
 * link breadth first to a depth, with the politeness settings of our run
 * (DOWNLOAD_DELAY, one request per host at a time, the same concurrency,
 * robots.txt obeyed), and saves nothing but each page's URL, one a line, so
 * that the bench can check what it crawled.
 *
 * The spider is a script the bench writes into a temporary directory
 * (SPIDER_SCRIPT), run by a Python that imports scrapy: BENCH_PYTHON when
 * set, else /usr/bin/python3 (Debian's python3-scrapy), else python3 on the
 * PATH (which may be another Python, e.g. pyenv's, without Scrapy).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The spider: `python3 broad_spider.py SEED DEPTH CONCURRENCY DELAY OUT`. */
export const SPIDER_SCRIPT = `# The Scrapy peer of polite-crawler's broad bench, written by bench/scrapy-peer.ts.
# Follows every link breadth first from SEED to DEPTH; writes each page's URL on a line of OUT.
# Usage: python3 broad_spider.py SEED DEPTH CONCURRENCY DELAY OUT
import sys

import scrapy
from scrapy.crawler import CrawlerProcess

SEED, DEPTH, CONCURRENCY, DELAY, OUT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]


class BroadSpider(scrapy.Spider):
    name = "broad"
    start_urls = [SEED]

    def parse(self, response):
        saved.write(response.url + "\\n")
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)


with open(OUT, "w") as saved:
    process = CrawlerProcess(settings={
        "ROBOTSTXT_OBEY": True,
        "DOWNLOAD_DELAY": DELAY,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "CONCURRENT_REQUESTS": CONCURRENCY,
        # One request per host at a time; the hosts are IP addresses, so the slots are per IP.
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "CONCURRENT_REQUESTS_PER_IP": 1,
        "DEPTH_LIMIT": DEPTH,
        # Breadth first, as Scrapy's documentation says: deeper requests later, FIFO queues.
        "DEPTH_PRIORITY": 1,
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    })
    process.crawl(BroadSpider)
    process.start()
`;

/** A Python with Scrapy, or why there is none. */
export type ScrapyPython = { python: string; version: string } | { skip: string };

/** The first of BENCH_PYTHON, /usr/bin/python3 and python3 that imports scrapy. */
export function findScrapy(): ScrapyPython {
  const given = process.env['BENCH_PYTHON'];
  const candidates = given !== undefined && given !== '' ? [given] : ['/usr/bin/python3', 'python3'];
  for (const python of candidates) {
    const r = spawnSync(python, ['-c', 'import scrapy; print(scrapy.__version__)'], { encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0) return { python, version: r.stdout.trim() };
  }
  return { skip: `no Python with Scrapy (tried ${candidates.join(', ')}; apt-get install -y python3-scrapy, or set BENCH_PYTHON): skipped` };
}

/** Writes the spider into `dir`; returns the arguments for the Python that runs it. */
export function spiderArgs(dir: string, seed: string, depth: number, concurrency: number, delaySeconds: number, out: string): string[] {
  const script = join(dir, 'broad_spider.py');
  writeFileSync(script, SPIDER_SCRIPT);
  return [script, seed, String(depth), String(concurrency), String(delaySeconds), out];
}
