// A form for a tool's JSON Schema (the top-level object of inputSchema): one field per property, typed,
// with defaults, limits and descriptions. read() gives the arguments, leaving out empty optional fields.
import { h } from './dom.js';

const LONG_TEXT = /^(content|script|code|old_string|new_string|text|diff)$/;

export function schemaForm(schema, idPrefix) {
  const props = (schema && schema.properties) || {};
  const required = new Set((schema && schema.required) || []);
  const fields = Object.entries(props).map(([name, spec]) => field(name, spec || {}, required.has(name), idPrefix));
  const element = h('div', { class: 'schema-form' },
    fields.length ? fields.map((f) => f.element) : h('p', { class: 'muted' }, 'This tool takes no arguments.'));
  return {
    element,
    read() {
      const args = {};
      for (const f of fields) {
        const value = f.read();
        if (value !== undefined) args[f.name] = value;
      }
      return args;
    },
  };
}

// A field of several forms (anyOf: an integer, or the same as a digit string) is shown as its first typed form.
function firstForm(spec) {
  const form = spec.type === undefined && Array.isArray(spec.anyOf) ? spec.anyOf.find((b) => b && b.type) : null;
  return form ? { ...form, ...spec } : spec;
}

function field(name, rawSpec, isRequired, idPrefix) {
  const spec = firstForm(rawSpec);
  const id = `${idPrefix}-${name}`;
  const type = Array.isArray(spec.type) ? spec.type[0] : spec.type;
  const label = h('label', { for: id }, name, isRequired ? h('span', { class: 'error' }, ' *') : null);
  const help = spec.description ? h('p', { class: 'help' }, spec.description) : null;
  let input;
  let read;
  if (Array.isArray(spec.enum)) {
    input = h('select', { id, name },
      isRequired ? null : h('option', { value: '' }, '—'),
      spec.enum.map((v) => h('option', { value: String(v), selected: v === spec.default }, String(v))));
    read = () => (input.value === '' ? undefined : spec.enum.find((v) => String(v) === input.value));
  } else if (type === 'boolean') {
    input = h('input', { id, name, type: 'checkbox', checked: spec.default === true });
    read = () => input.checked;
  } else if (type === 'integer' || type === 'number') {
    input = h('input', { id, name, type: 'number', step: type === 'integer' ? 1 : 'any', min: spec.minimum,
      max: spec.maximum, value: spec.default, required: isRequired });
    read = () => (input.value === '' ? undefined : Number(input.value));
  } else if (type === 'array' && spec.items && spec.items.type === 'string') {
    input = h('textarea', { id, name, rows: 3, placeholder: 'one per line' },
      Array.isArray(spec.default) ? spec.default.join('\n') : '');
    read = () => {
      const lines = input.value.split('\n').filter((l) => l.length > 0);
      return lines.length ? lines : undefined;
    };
  } else if (type === 'array' || type === 'object') {
    input = h('textarea', { id, name, rows: 4, class: 'mono', placeholder: type === 'array' ? '[ … ]' : '{ … }' },
      spec.default === undefined ? '' : JSON.stringify(spec.default, null, 2));
    read = () => {
      if (input.value.trim() === '') return undefined;
      try {
        return JSON.parse(input.value);
      } catch (e) {
        throw new Error(`${name}: not valid JSON (${e.message})`);
      }
    };
  } else {
    const long = LONG_TEXT.test(name) || (spec.maxLength || 0) > 20000;
    input = long
      ? h('textarea', { id, name, rows: 6, class: 'mono', required: isRequired }, spec.default || '')
      : h('input', { id, name, type: 'text', value: spec.default, required: isRequired, maxlength: spec.maxLength,
        autocomplete: 'off', spellcheck: 'false' });
    read = () => (input.value === '' && !isRequired ? undefined : input.value);
  }
  const element = type === 'boolean'
    ? h('div', { class: 'field' }, h('label', { for: id }, input, ' ', name), help)
    : h('div', { class: 'field' }, label, input, help);
  return { name, element, read };
}
