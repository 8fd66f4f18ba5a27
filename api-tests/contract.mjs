// Checks a hub's OpenAPI document and real answers against it. Started by ApiContractTest (hub-verticles), which runs
// a real hub and node, makes a request for every documented route and writes what it got to a folder:
//   openapi.json     the document as the hub served it
//   exchanges.json   [{name, method, path (the documented path), status, contentType, body (parsed JSON, or text)}]
// This script
//   1. lints openapi.json with @redocly/cli (recommended rules): any error fails;
//   2. compiles every schema of the document with Ajv (JSON Schema 2020-12) in strict mode;
//   3. finds each exchange's documented response (status, then 4XX/5XX, then default) and validates the body;
//   4. compiles every tool's inputSchema found in an answer (GET /api/v1/tools, MCP tools/list) in strict mode.
// Usage: node contract.mjs <folder>. Exit code 0 when everything holds; each problem is printed.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const folder = process.argv[2];
if (!folder) {
  console.error('usage: node contract.mjs <folder with openapi.json and exchanges.json>');
  process.exit(2);
}
const documentFile = path.join(folder, 'openapi.json');
const document = JSON.parse(fs.readFileSync(documentFile, 'utf8'));
const exchanges = JSON.parse(fs.readFileSync(path.join(folder, 'exchanges.json'), 'utf8'));
const problems = [];

// 1. lint (no telemetry, no update check: the CLI runs offline)
const redocly = path.join(here, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const lint = spawnSync(process.execPath, [redocly, 'lint', documentFile, '--config', path.join(here, 'redocly.yaml'),
  '--format', 'json', '--max-problems', '1000'], {
  encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
});
let lintTotals = { errors: -1, warnings: -1 };
try {
  const report = JSON.parse(lint.stdout);
  lintTotals = report.totals;
  for (const p of report.problems) {
    const where = (p.location || []).map((l) => l.pointer).join(', ');
    const line = `lint ${p.severity} ${p.ruleId}: ${p.message} at ${where}`;
    if (p.severity === 'error') problems.push(line); else console.log(line);
  }
} catch (e) {
  problems.push(`lint did not run: exit ${lint.status}; ${lint.stderr || e.message}`);
}
console.log(`lint: ${lintTotals.errors} error(s), ${lintTotals.warnings} warning(s)`);

// 2. every schema of the document, strict; component refs point into a registered copy of the components
const COMPONENTS = 'urn:fleetbus:openapi-components';
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const rewrite = (node) => {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node && typeof node === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? `${COMPONENTS}#/$defs/${v.slice('#/components/schemas/'.length)}` : rewrite(v);
    }
    return out;
  }
  return node;
};
const components = rewrite(document.components?.schemas ?? {});
ajv.addSchema({ $id: COMPONENTS, $defs: components });
for (const name of Object.keys(components)) {
  try {
    ajv.getSchema(`${COMPONENTS}#/$defs/${name}`);
  } catch (e) {
    problems.push(`schema components/schemas/${name} is not strict JSON Schema 2020-12: ${e.message}`);
  }
}
const compiled = new Map();
const validatorFor = (where, schema) => {
  if (!compiled.has(where)) {
    try {
      compiled.set(where, ajv.compile(rewrite(schema)));
    } catch (e) {
      problems.push(`schema at ${where} is not strict JSON Schema 2020-12: ${e.message}`);
      compiled.set(where, null);
    }
  }
  return compiled.get(where);
};
for (const [p, item] of Object.entries(document.paths ?? {})) {
  for (const [method, op] of Object.entries(item)) {
    for (const [mt, c] of Object.entries(op.requestBody?.content ?? {})) validatorFor(`${method} ${p} request ${mt}`, c.schema);
    for (const [status, r] of Object.entries(op.responses ?? {})) {
      for (const [mt, c] of Object.entries(r.content ?? {})) validatorFor(`${method} ${p} ${status} ${mt}`, c.schema);
    }
  }
}

// 3. the real answers
const toolSchemas = [];
let matched = 0;
for (const x of exchanges) {
  const label = `${x.name}: ${x.method.toUpperCase()} ${x.path} → ${x.status}`;
  const op = document.paths?.[x.path]?.[x.method];
  if (!op) {
    problems.push(`${label}: the document has no such operation`);
    continue;
  }
  const status = String(x.status);
  const key = [status, `${status[0]}XX`, 'default'].find((k) => op.responses?.[k]);
  if (!key) {
    problems.push(`${label}: status ${status} is not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})`);
    continue;
  }
  const response = op.responses[key];
  const mediaType = (x.contentType || '').split(';')[0].trim().toLowerCase();
  if (!response.content) {
    if (x.body !== null && x.body !== '' && x.body !== undefined) {
      problems.push(`${label}: documented without a body, got ${mediaType || 'a body'}`);
    } else {
      matched++;
    }
    continue;
  }
  const content = response.content[mediaType];
  if (!content) {
    problems.push(`${label}: answered ${mediaType || 'no content type'}, documented ${Object.keys(response.content).join(', ')}`);
    continue;
  }
  const validate = validatorFor(`${x.method} ${x.path} ${key} ${mediaType}`, content.schema);
  if (!validate) continue;
  if (validate(x.body)) {
    matched++;
  } else {
    const errors = validate.errors.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}`
      + (e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : '')).join('; ');
    problems.push(`${label}: the body does not match responses.${key} ${mediaType}: ${errors}`);
  }
  const body = x.body && typeof x.body === 'object' ? x.body : null;
  const tools = body?.tools ?? body?.result?.tools;
  if (Array.isArray(tools)) {
    tools.filter((t) => t && typeof t === 'object' && 'inputSchema' in t)
      .forEach((t) => toolSchemas.push({ where: `${x.name} ${t.name}`, schema: t.inputSchema }));
  }
}

// 4. every published tool schema: plain, strict JSON Schema 2020-12
for (const { where, schema } of toolSchemas) {
  const strict = new Ajv2020({ strict: true, allErrors: true });
  addFormats(strict);
  try {
    strict.compile(schema);
  } catch (e) {
    problems.push(`tool schema ${where} is not strict JSON Schema 2020-12: ${e.message}`);
  }
}
const annotated = exchanges.filter((x) => JSON.stringify(x.body ?? '').includes('__absolute_uri__')).map((x) => x.name);
if (JSON.stringify(document).includes('__absolute_uri__')) annotated.push('openapi.json');
if (annotated.length) problems.push(`validator annotations (__absolute_uri__) published in: ${annotated.join(', ')}`);

console.log(`contract: ${matched} of ${exchanges.length} answers match the document; ${toolSchemas.length} tool schemas`
  + ` compiled strict; ${compiled.size} operation schemas and ${Object.keys(components).length} components compiled strict`);
for (const p of problems) console.log(`PROBLEM ${p}`);
console.log(problems.length ? `contract: ${problems.length} problem(s)` : 'contract: all checks passed');
process.exit(problems.length ? 1 : 0);
