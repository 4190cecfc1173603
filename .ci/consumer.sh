#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, install the tarball in an empty project (no provider SDK: they are
# optional peers), check that no published .d.ts imports an optional peer outside the entry that needs it at
# runtime, import every entry point without the optional peers (promptline/ai-sdk must name `ai`), type-check the
# README's TypeScript snippets (strict, NodeNext, skipLibCheck: false) and run them.
# Needs `npm run build` first (dist/); the install reaches only the npm registry (or its local cache).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$repo"

test -f dist/index.d.ts || { echo "consumer: dist/ is missing; run npm run build first"; exit 1; }

# 1. No published type reaches for an optional peer (promptline/ai-sdk loads `ai` at runtime, so it may).
peers='@anthropic-ai/sdk|openai|@google/genai|ai|@ai-sdk/[^"]+|@langchain/[^"]+'
leaks="$(grep -rlE "(from |import\\()\"($peers)(/[^\"]*)?\"" dist --include='*.d.ts' | grep -v '^dist/providers/ai-sdk\.d\.ts$' || true)"
if [ -n "$leaks" ]; then
  echo "consumer: published types import an optional peer:"
  echo "$leaks"
  exit 1
fi

# 2. Pack and install the tarball in an empty project, with the compiler and Node's types only.
tarball="$(npm pack --silent --ignore-scripts --pack-destination "$work" | tail -1)"
mkdir -p "$work/app/snippets"
cd "$work/app"
cat >package.json <<'JSON'
{ "name": "promptline-consumer", "private": true, "type": "module" }
JSON
cat >tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "skipLibCheck": false,
    "types": ["node"],
    "outDir": "out",
    "rootDir": "snippets"
  },
  "include": ["snippets"]
}
JSON
ts_version="$(node -p "require('$repo/node_modules/typescript/package.json').version")"
node_types="$(node -p "require('$repo/node_modules/@types/node/package.json').version")"
npm install --no-audit --no-fund --prefer-offline --no-save --ignore-scripts \
  "$work/$tarball" "typescript@$ts_version" "@types/node@$node_types" >/dev/null

# 3. Every entry point loads without the optional peers, except promptline/ai-sdk, which must name the one it needs
#    (a PromptlineError, code peer-missing), not fail with Node's ERR_MODULE_NOT_FOUND.
node --input-type=module -e "$(cat <<'JS'
import { readFileSync } from "node:fs"
const { exports } = JSON.parse(readFileSync("node_modules/promptline/package.json", "utf8"))
const { PromptlineError } = await import("promptline")
for (const entry of Object.keys(exports).map((key) => key.replace(/^\./, "promptline"))) {
  const error = await import(entry).then(() => undefined, (e) => e)
  if (entry !== "promptline/ai-sdk") {
    if (error) throw new Error(`consumer: ${entry} does not load without the optional peers: ${error.message}`)
    continue
  }
  const expected = "promptline/ai-sdk needs the `ai` package (>=5 <8): npm install ai"
  if (!(error instanceof PromptlineError) || error.code !== "peer-missing" || error.message !== expected)
    throw new Error(`consumer: promptline/ai-sdk without ai gave ${error?.code}: ${error?.message ?? "no error"}`)
}
console.log(`consumer: ${Object.keys(exports).length} entry points load without the optional peers; promptline/ai-sdk names \`ai\``)
JS
)"

# 4. The README's ```ts blocks, one module each.
node - "$repo/README.md" snippets <<'JS'
const { readFileSync, writeFileSync } = require("node:fs")
const [readme, dir] = process.argv.slice(2)
const blocks = [...readFileSync(readme, "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1])
if (blocks.length === 0) throw new Error("README has no ```ts snippets")
blocks.forEach((code, i) => writeFileSync(`${dir}/readme-${i + 1}.ts`, code))
console.log(`consumer: ${blocks.length} README snippets`)
JS

# 5. Type-check (every .d.ts of the package the snippets reach is checked too), compile, run.
npx --no-install tsc -p .
for js in out/*.js; do
  node "$js" >/dev/null || { echo "consumer: $js (from README) failed"; exit 1; }
done
echo "consumer: the packed package type-checks with skipLibCheck: false and the README snippets run"
