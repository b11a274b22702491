// Writes .env.example and the configuration table of docs/configuration.md from the declaration
// in src/config/variables.ts (built first by `npm run config:docs`).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderEnvExample, withConfigurationTable } from '../dist/src/config/config-docs.js';

const root = path.resolve(import.meta.dirname, '..');
const envExample = path.join(root, '.env.example');
const configurationDoc = path.join(root, 'docs/configuration.md');

writeFileSync(envExample, renderEnvExample());
writeFileSync(configurationDoc, withConfigurationTable(readFileSync(configurationDoc, 'utf8')));
console.log('wrote .env.example and the table of docs/configuration.md');
