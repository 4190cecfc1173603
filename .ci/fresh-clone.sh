#!/usr/bin/env bash
# The README's set-up, as a new user runs it: a fresh clone, `npm install`, then the main job with npx.
# It must print the prompt, and npx must find the package's own bin (no second install or compile). The install
# must not warn about engines (EBADENGINE) on this Node, and stays under SETUP_LIMIT_MB (`du -sm node_modules`); nor
# may the SDK clients that `npm test` installs on its first run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/promptline"
cd "$work/promptline"
npm install --no-audit --no-fund >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
if grep -q EBADENGINE "$work/install.log"; then
  echo "fresh clone: npm install warns about engines on Node $(node -v):"
  grep -A3 "EBADENGINE Unsupported" "$work/install.log"
  exit 1
fi
# Issue 31 asked for at most 200 MB; today's is about 164: the runtime dependencies, what the build needs (TypeScript,
# esbuild, `ai` for the promptline/ai-sdk declarations) and the test runner, and ioredis (2 MB; the build type-checks the Redis state store against it). The official SDKs the tests use as
# clients install apart (test/clients/, checked below); a bench or test-only peer goes in bench/package.json or
# test/peers/package.json.
SETUP_LIMIT_MB=200
size_mb="$(du -sm node_modules | cut -f1)"
added="$(grep -oE 'added [0-9]+ packages' "$work/install.log" | tail -1)"
echo "fresh clone: npm install ${added:-added ? packages}: ${size_mb} MB in node_modules (du -sm), no engine warning"
if [ "$size_mb" -gt "$SETUP_LIMIT_MB" ]; then
  echo "fresh clone: node_modules is ${size_mb} MB, over the set-up's limit of ${SETUP_LIMIT_MB} MB"
  exit 1
fi
# The README's second command, `npm test`, installs the SDK clients into test/clients/ on its first run (Vitest's
# global set-up, the same call as here): no engine warning there either.
node --import tsx scripts/peers.ts install clients >"$work/clients.log" 2>&1 || { cat "$work/clients.log"; exit 1; }
if grep -q EBADENGINE "$work/clients.log"; then
  echo "fresh clone: installing the SDK clients warns about engines on Node $(node -v):"
  grep -A3 "EBADENGINE Unsupported" "$work/clients.log"
  exit 1
fi
echo "fresh clone: the SDK clients for npm test: $(du -sm test/clients/node_modules | cut -f1) MB in test/clients/node_modules"
# npx must resolve the package's own bin from node_modules/.bin, not fetch and build a copy.
test -L node_modules/.bin/promptline || { echo "fresh clone: node_modules/.bin/promptline is missing"; exit 1; }
out="$(node bin/promptline.js prompt --no-mcp)"
case "$out" in
  *"You are promptline"*) ;;
  *) echo "fresh clone: npx promptline prompt did not print the prompt"; echo "$out" | head -20; exit 1 ;;
esac
version="$(npx --no-install promptline --version)"
test "$version" = "$(node -p 'require("./package.json").version')" || { echo "fresh clone: --version printed $version"; exit 1; }
npx --no-install promptline --version >/dev/null
# The README's way to use it on one's own project: `npm link` in the clone (into a global prefix of our own here),
# then `promptline` in another folder.
mkdir -p "$work/global" "$work/elsewhere"
NPM_CONFIG_PREFIX="$work/global" npm link --no-audit --no-fund >"$work/link.log" 2>&1 || { cat "$work/link.log"; exit 1; }
elsewhere="$(cd "$work/elsewhere" && PATH="$work/global/bin:$PATH" promptline prompt --no-mcp)"
case "$elsewhere" in
  *"You are promptline"*"Working directory: $work/elsewhere"*) ;;
  *) echo "fresh clone: after npm link, promptline prompt in another folder did not print its prompt"; exit 1 ;;
esac
test -d node_modules/vitest || { echo "fresh clone: npm link removed the clone's dev dependencies"; exit 1; }
echo "fresh clone: npm install && node bin/promptline.js prompt works ($(printf '%s' "$out" | wc -l) lines); after npm link, promptline prompt works in another folder"
