// validate.mjs -- checks recorded API answers against docs/openapi.yaml: each JSON line
// {method, path, status, body} of the log (written by tests/smoke/lib.sh's req and by `pouch`
// when POUCH_API_LOG is set) is matched to its operation by path template, and its body is
// validated (ajv, JSON Schema 2020-12) against the response the description gives for that
// status. A status the operation does not list is accepted only for the answers any operation
// may give (405, 413, 415, 429, 500, 502-504, with their codes). Prints one PASS/FAIL line per
// operation seen and exits 1 on any failure.
//   node validate.mjs docs/openapi.yaml answers.jsonl
import * as fs from 'node:fs';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

const [specPath, logPath] = process.argv.slice(2);
const spec = YAML.parse(fs.readFileSync(specPath, 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
ajv.addSchema(spec, 'api');

const ANY_OPERATION = {
  405: ['method_not_allowed'], 413: ['payload_too_large'], 415: ['unsupported_media_type'],
  429: ['rate_limited', 'slow_down'], 500: ['internal'], 502: ['unavailable'],
  503: ['unavailable'], 504: ['unavailable'],
};

const esc = (s) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const templates = Object.keys(spec.paths).map((t) => ({
  template: t,
  params: (t.match(/\{/g) || []).length,
  re: new RegExp('^' + t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+') + '$'),
}));

function matchTemplate(path) {
  const hits = templates.filter((t) => t.re.test(path)).sort((a, b) => a.params - b.params);
  return hits.length ? hits[0].template : null;
}

const validators = new Map();
function validatorFor(pointer) {
  if (!validators.has(pointer)) validators.set(pointer, ajv.compile({ $ref: 'api#' + pointer }));
  return validators.get(pointer);
}

// The JSON Pointer of the response schema of (template, method, status), following a response $ref.
function responsePointer(template, method, status) {
  const op = spec.paths[template]?.[method.toLowerCase()];
  if (!op) return null;
  let pointer = `/paths/${esc(template)}/${method.toLowerCase()}/responses/${status}`;
  let resp = op.responses?.[String(status)];
  if (!resp) return null;
  if (resp.$ref) {
    pointer = resp.$ref.slice(1);
    resp = pointer.split('/').slice(1).reduce((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  if (!resp.content?.['application/json']) return undefined;  // documented, but not as JSON
  return pointer + '/content/application~1json/schema';
}

const genericError = ajv.compile({ $ref: 'api#/components/schemas/Error' });

const results = new Map();  // "METHOD template" -> {answers, problems}
function record(key, problem) {
  if (!results.has(key)) results.set(key, { answers: 0, problems: [] });
  const r = results.get(key);
  r.answers++;
  if (problem) r.problems.push(problem);
}

const lines = fs.existsSync(logPath) ? fs.readFileSync(logPath, 'utf8').split('\n').filter(Boolean) : [];
for (const line of lines) {
  const a = JSON.parse(line);
  const path = a.path.split('?')[0];
  let body;
  try {
    body = JSON.parse(a.body);
  } catch {
    record(`${a.method} ${path}`, `${a.status}: the body is not JSON`);
    continue;
  }
  const template = matchTemplate(path);
  const key = template ? `${a.method} ${template}` : 'unknown paths';
  const describe = (errs) => errs.map((e) => `${e.instancePath || '/'} ${e.message}`).slice(0, 2).join('; ');
  const code = body?.error?.code;
  if (!template || !spec.paths[template][a.method.toLowerCase()]) {
    // An undocumented path or method: only the generic 404 / 405 may answer it.
    const ok = (a.status === 404 && code === 'not_found') || (a.status === 405 && code === 'method_not_allowed') ||
               (ANY_OPERATION[a.status]?.includes(code));
    record(template ? `${a.method} ${template} (undocumented method)` : key,
           ok && genericError(body) ? null : `${a.status} ${code ?? ''} for ${a.method} ${path}`);
    continue;
  }
  const pointer = responsePointer(template, a.method, a.status);
  if (pointer === null) {
    const codes = ANY_OPERATION[a.status];
    if (codes && codes.includes(code) && genericError(body)) record(key, null);
    else record(key, `status ${a.status} (${code ?? 'no code'}) is not documented`);
    continue;
  }
  if (pointer === undefined) {
    record(key, `status ${a.status} is documented without a JSON body`);
    continue;
  }
  const v = validatorFor(pointer);
  record(key, v(body) ? null : `${a.status}: ${describe(v.errors)} (request_id ${body?.meta?.request_id})`);
}

let failed = 0;
if (lines.length === 0) {
  console.log('FAIL openapi.answers: no recorded answers to validate (' + logPath + ')');
  failed++;
}
for (const [key, r] of [...results.entries()].sort()) {
  if (r.problems.length === 0) {
    console.log(`PASS openapi.answers ${key} (${r.answers} answers)`);
  } else {
    failed++;
    console.log(`FAIL openapi.answers ${key}: ${r.problems.length}/${r.answers}: ${r.problems.slice(0, 3).join(' | ')}`);
  }
}
const seen = new Set([...results.keys()].map((k) => k.replace(/ \(undocumented method\)$/, '')));
const unseen = [];
for (const t of Object.keys(spec.paths))
  for (const m of Object.keys(spec.paths[t]))
    if (['get', 'put', 'post', 'patch', 'delete'].includes(m) && !seen.has(`${m.toUpperCase()} ${t}`)) unseen.push(`${m.toUpperCase()} ${t}`);
console.log(`# ${lines.length} answers, ${results.size} operations; not exercised: ${unseen.length ? unseen.join(', ') : 'none'}`);
process.exit(failed ? 1 : 0);
