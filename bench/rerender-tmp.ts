import { readFileSync } from 'node:fs';
import { render } from './tools/waiting-runs-report.js';
const files = process.argv.slice(2);
const levels = files.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')).levels);
console.log(render(levels));
