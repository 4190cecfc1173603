#!/usr/bin/env bash
# The README's set-up, as a new user runs it: a fresh clone, `npm install`, then the main job with npx.
# It must print the prompt, and npx must find the package's own bin (no second install or compile).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/promptline"
cd "$work/promptline"
npm install --no-audit --no-fund >/dev/null 2>&1
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
echo "fresh clone: npm install && node bin/promptline.js prompt works ($(printf '%s' "$out" | wc -l) lines)"
