/**
 * The node options the programs' launchers start node with: the package's
 * bins (their `#!` line, written by scripts/bundle.ts) and the checkout's
 * `./crawler` and `./KeywordHunter` scripts. They must be given when node
 * starts (neither NODE_OPTIONS set from inside nor v8.setFlagsFromString
 * can), so they live on the launchers' command lines.
 *
 * `--v8-pool-size=1`: V8's worker threads (the concurrent compiler, the
 * garbage collector's helpers) are 4 by default whatever the machine. A
 * crawl runs its JavaScript on one thread, and on a two-core machine the
 * other threads took cores from it and from the server: the parallel
 * scavenges waited for helpers that were not running. With one worker, A/B
 * on 2 vCPUs (bench/ab.js, docs/performance.md, V8's worker threads): the
 * 2,060-page crawl 1.096x to 1.123x pages/s, the 10,300-page crawl 1.044x
 * to 1.051x, `--warc .gz` 1.034x, broad 2,000 x 10 0.77 to 0.83 of the
 * ideal against 0.67 to 0.68; broad 500 x 20 and PostgreSQL workers the same.
 * It is a node option, not a V8 flag: V8's flag hash, which a code cache
 * must match, is the same with it (launch.ts).
 */
export const LAUNCH_NODE_FLAGS: readonly string[] = ['--v8-pool-size=1'];
