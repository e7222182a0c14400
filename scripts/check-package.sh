#!/usr/bin/env bash
# Proves the package installs and runs the way a user gets it: npm pack, then
# npm install -g of that tarball into a throwaway prefix, then the installed
# crawler and KeywordHunter on a loopback site. The install reaches only the npm
# registry: better-sqlite3 compiles from source (the tarball's
# .prebuild-installrc), and node-gyp uses this node's own headers when they are
# installed next to it. Takes about a minute plus the compile.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-package.XXXXXX")
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "check-package: FAIL: $*" >&2; exit 1; }
say() { echo "check-package: $*" >&2; }

# --- pack (its prepack/prepare scripts rebuild dist/src from src) ---
say "packing"
npm pack --loglevel=warn --pack-destination "$tmp" >/dev/null
tarballs=("$tmp"/polite-crawler-*.tgz)
[[ ${#tarballs[@]} -eq 1 && -f ${tarballs[0]} ]] || fail "npm pack did not leave one polite-crawler-*.tgz"
tarball=${tarballs[0]}
tar -tzf "$tarball" > "$tmp/contents"
# The bins are launchers of the bundles, each with its V8 code cache (scripts/bundle.ts); dist/src is the library (main).
for f in crawler.cjs crawler.bundle.cjs crawler.bundle.v8cache keyword-hunter.cjs keyword-hunter.bundle.cjs keyword-hunter.bundle.v8cache; do
  grep -qx "package/dist/bin/$f" "$tmp/contents" || fail "tarball lacks dist/bin/$f (a bin, its bundle or its code cache)"
done
grep -qx 'package/dist/src/index.js' "$tmp/contents" || fail "tarball lacks dist/src/index.js"
grep -qx 'package/.prebuild-installrc' "$tmp/contents" || fail "tarball lacks .prebuild-installrc (better-sqlite3 would download a prebuilt binary)"
grep -qx 'package/LICENSE' "$tmp/contents" || fail "tarball lacks LICENSE (npm ships it whatever \"files\" says)"
if grep -E '^package/(test|bench|scripts|dist/test|dist/bench|dist/scripts)/' "$tmp/contents" >&2; then
  fail "tarball holds tests, benchmarks or scripts (above)"
fi
say "tarball: $(wc -l < "$tmp/contents") files, $(wc -c < "$tarball") bytes"

# --- install globally into a clean prefix ---
install_flags=(--prefix "$tmp/prefix" --allow-scripts=better-sqlite3 --no-audit --no-fund)
node_prefix=$(node -p 'require("node:path").resolve(process.execPath, "..", "..")')
nodedir=$(npm config get nodedir)
if [[ ( -z $nodedir || $nodedir == undefined || $nodedir == null ) && -f $node_prefix/include/node/node_version.h ]]; then
  install_flags+=(--nodedir="$node_prefix")   # node-gyp would otherwise download headers from nodejs.org
fi
# npm 11 also warns that polite-crawler's own `prepare` is not in allowScripts:
# npm does not run it for a tarball install, and it would skip the build there.
say "installing with npm install -g (better-sqlite3 compiles from source)"
(cd "$tmp" && npm install -g "${install_flags[@]}" "./$(basename "$tarball")")
bin=$tmp/prefix/bin
installed=$tmp/prefix/lib/node_modules/polite-crawler
[[ -x $bin/crawler && -x $bin/KeywordHunter ]] || fail "no crawler and KeywordHunter in $bin"
[[ $(readlink -f "$bin/crawler") == "$installed/dist/bin/crawler.cjs" ]] || fail "the installed crawler is not the bundle: $(readlink -f "$bin/crawler")"
[[ $(readlink -f "$bin/KeywordHunter") == "$installed/dist/bin/keyword-hunter.cjs" ]] || fail "the installed KeywordHunter is not the bundle"

# better-sqlite3 was compiled here, not downloaded: its install read the shipped
# .prebuild-installrc, and node-gyp's object files are there.
sqlite_dir=$(cd "$installed" && node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json"))')
from_source=$(cd "$sqlite_dir" && node -p 'require("prebuild-install/rc")(require("./package.json")).buildFromSource')
[[ $from_source == true ]] || fail "prebuild-install in $sqlite_dir does not see buildFromSource=true"
[[ -d $sqlite_dir/build/Release/obj.target ]] || fail "better-sqlite3 was not compiled from source (no build/Release/obj.target)"

# --- the installed commands ---
NODE_DEBUG=code-cache "$bin/crawler" --help > "$tmp/crawler-help" 2> "$tmp/crawler-help-debug" || fail "crawler --help exited $?"
grep -q 'CODE-CACHE [0-9]*: accepted' "$tmp/crawler-help-debug" || fail "the installed crawler did not take its code cache: $(cat "$tmp/crawler-help-debug")"
grep -q '^Usage: crawler' "$tmp/crawler-help" || fail "crawler --help printed no usage"
"$bin/KeywordHunter" --help > "$tmp/kh-help" || fail "KeywordHunter --help exited $?"
grep -q '^Usage: KeywordHunter' "$tmp/kh-help" || fail "KeywordHunter --help printed no usage"
# --version reads the installed package's package.json (src/package-info.ts): it must be found from the bundle.
version=$(node -p 'require("./package.json").version')
for program in crawler KeywordHunter; do
  out=$("$bin/$program" --version) || fail "$program --version exited $?"
  [[ $out == "$program $version" ]] || fail "$program --version printed \"$out\", not \"$program $version\""
done

# A two-page site on loopback (no robots.txt: 404 allows everything).
node -e '
const http = require("node:http");
const pages = {
  "/": "<html><body><p>home</p><a href=\"/two.html\">two</a></body></html>\n",
  "/two.html": "<html><body>\n<p>the needle is here</p>\n<a href=\"/\">home</a></body></html>\n",
};
const server = http.createServer((req, res) => {
  const body = pages[req.url];
  if (body === undefined) { res.writeHead(404, { "content-type": "text/plain" }); res.end("not found\n"); return; }
  res.writeHead(200, { "content-type": "text/html" });
  res.end(body);
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
' > "$tmp/server-port" &
server_pid=$!
for _ in $(seq 100); do
  [[ -s $tmp/server-port ]] && break
  kill -0 "$server_pid" 2>/dev/null || fail "the loopback server exited"
  sleep 0.1
done
port=$(head -n1 "$tmp/server-port")
[[ $port =~ ^[0-9]+$ ]] || fail "the loopback server printed no port"
site=http://127.0.0.1:$port

mkdir "$tmp/pages"
"$bin/crawler" "$site/" "$tmp/pages" 1 --delay 0 > "$tmp/crawl-log" || fail "crawler exited $? (log: $(cat "$tmp/crawl-log"))"
[[ -f $tmp/pages/1 && -f $tmp/pages/2 ]] || fail "the crawl did not save pages 1 and 2"
[[ $(head -n1 "$tmp/pages/1") == "$site/" ]] || fail "page 1 is not the seed"
[[ $(head -n1 "$tmp/pages/2") == "$site/two.html" ]] || fail "page 2 is not /two.html"

"$bin/KeywordHunter" "$site/" needle "$tmp/found" > "$tmp/hunt-log" || fail "KeywordHunter exited $?"
grep -qxF "FOUND_KEYWORD:host=127.0.0.1;port=$port;respath=/two.html;line=<p>the needle is here</p>" "$tmp/hunt-log" \
  || fail "KeywordHunter did not find the keyword (output: $(cat "$tmp/hunt-log"))"

say "ok: the packed package installs and its crawler and KeywordHunter work (${SECONDS}s)"
