#!/usr/bin/env node
// The promptline command. `npm install` builds dist/ (the prepare script); this file only starts it.
import { main } from "../dist/cli/main.js"

process.exitCode = await main(process.argv.slice(2))
