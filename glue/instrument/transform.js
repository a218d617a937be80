// The instrumentation transform: parses a script or module with acorn and inserts enter/exit
// probes (glue/instrument/probes.js) into every function with magic-string, which only inserts
// and moves text, so the output keeps the input's lines and the source map is exact. An input
// source map is composed with ours (@jridgewell/remapping), and the frame table registers each
// function's name and position in the ORIGINAL source (through the input map when there is one).
//
// Per ordinary function (declarations, expressions, arrows, methods, accessors, constructors),
// the push and the pop written inline, behind the switch `__pso.o` (on while a profiler
// runs: probes.js; no probe call and no stack access while none runs; `__pss` is the
// probes' array, 258 where its stack starts, `__psb_H + i` the frame id; while a profiler logs,
// the cursor `__pss[1]` is set and each change is a record in the log window, with a call to the
// logger `__ps.l` when the window is full, the change is at depth 0, or it is next to a slow
// frame's gap):
//   { "directives"; hoisted function declarations;
//     let __pst = -1, __psv;
//     if (__pso.o) { __pst = __pss[0]; __pss[__pst + 258] = ID; __pss[0] = __pst + 1;
//       if (__pss[1] && (__pss[__pss[1]++] = ID, __pss[1] === 258 || !__pst ||
//           __pss[2] && __ps.F[ID] | __ps.F[__pss[__pst + 257]])) __ps.l(__pst); }
//     __psx: try { body } catch (__pse) { __ps.x(__pst); throw __pse }
//     if (__pst >= 0) { __pss[0] = __pst;
//       if (__pss[1] && (__pss[__pss[1]++] = ~__pst, … the same)) __ps.l(__pst); }
//     return __psv }
// Async functions and generators call the probes instead (`let __pst = __ps.e(ID)`, the exit
// `return __ps.r(__psv, __pst)`), which also take the popped state of a suspension (-1).
// with every `return E` of the function's own body as `{ __psv = E; break __psx }` (`return;` →
// `__psv = void 0`; `return a, b` → `__psv = (a, b)`): one exit per function, after the `try`,
// which passes the value through. Not `try { body } finally { __ps.x(__pst) }` (in V8 11 a
// `finally` cost ~3 ns more a call, and marked ran faster in Firefox without it) and not an
// exit call per `return` (each call site spends V8's inlining budget: docs/instrument.md), and
// not a body without `try` (stop 17: no engine ran measurably faster without it, and an
// exception would then leave its frame on the stack; bench/instrument-exits.mjs).
// A user's own `finally` after a `return` runs before the exit, inside the frame; a `finally`
// that throws is caught by the `catch`, which exits.
// Generators keep `try { body } finally { __ps.x(__pst) }`: gen.return() resumes a suspended
// generator with a return completion that neither the `catch` nor the exit after the `try` sees.
// A body-level function declaration that clashes with a `var` of the body (or another function)
// is moved ahead of the `try` (in a block that would be a SyntaxError); the others stay. An
// arrow's expression body becomes `{ ...; try { __psv = (expr) } catch … ; pop; return __psv }`
// (async: `{ ...; try { return __ps.r((expr), __pst) } catch … }`). In
// async functions and generators every `await`/`yield` pops the frame after its operand is
// evaluated and re-enters on resume; a `catch`/`finally` of such a function re-enters first (a
// rejected await lands there without the frame), and `for await` loops pop around their
// implicit awaits.
//
// Costs: one parse, one walk, O(functions) insertions; the output grows by ~480 bytes a function
// (and ~20 a return; marked.esm.js: 52 KB → 132 KB, 164 functions) plus the header with the
// probe runtime (~1.5 KB, one line) once per file.
import { Parser, tokTypes } from 'acorn';
import MagicString from 'magic-string';
import remapping from '@jridgewell/remapping';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { createProbes, PROBES_KEY, STACK_BASE as B } from './probes.js';

// A record in the probes' log window while a profiler logs (probes.js): the logger runs when the
// window is full, the change is at depth 0, or a slow frame's gap (the function's own or its
// caller's) ends or starts there.
const log = (record, id) =>
  `if(__pss[1]&&(__pss[__pss[1]++]=${record},__pss[1]===${B}||!__pst||` +
  `__pss[2]&&__ps.F[${id}]|__ps.F[__pss[__pst+${B - 1}]]))__ps.l(__pst);`;

export const MARKER = '/*perfshim:instrumented*/';

// The probe runtime every instrumented file carries (its header's fallback when perfshim is not
// loaded): createProbes's text without its comments, on one line, so the header adds no line
// and the output keeps the input's line numbers (~1.6 KB of the ~3.3 a file paid before stop
// 20; the function ends its statements with semicolons and has no string spanning lines).
export const PROBES_TEXT = (() => {
  const text = createProbes.toString();
  const cuts = [];
  Parser.parse(`(${text})`, {
    ecmaVersion: 'latest',
    onComment: (block, _, start, end) => cuts.push([start - 1, end - 1]),
  });
  let out = '',
    at = 0;
  for (const [from, to] of cuts) {
    out += text.slice(at, from);
    at = to;
  }
  out += text.slice(at);
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
})();

const FUNCTION = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

function parse(code, sourceType) {
  const opts = {
    ecmaVersion: 'latest',
    locations: true,
    allowHashBang: true,
    allowAwaitOutsideFunction: false,
  };
  if (sourceType) return Parser.parse(code, { ...opts, sourceType });
  try {
    return Parser.parse(code, { ...opts, sourceType: 'module' });
  } catch (e) {
    // Sloppy scripts (with, octal literals, `arguments` as a name …) do not parse as modules.
    try {
      return Parser.parse(code, {
        ...opts,
        sourceType: 'script',
        allowReturnOutsideFunction: true,
      });
    } catch {
      throw e;
    }
  }
}

function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

function keyName(key, computed, code) {
  if (!computed && key.type === 'Identifier') return key.name;
  if (key.type === 'PrivateIdentifier') return `#${key.name}`;
  if (key.type === 'Literal') return String(key.value);
  return `[${code.slice(key.start, key.end)}]`;
}

function memberPath(node) {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'ThisExpression') return 'this';
  if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier') {
    const obj = memberPath(node.object);
    return obj === null ? null : `${obj}.${node.property.name}`;
  }
  return null;
}

function className(cls, parent) {
  if (cls.id) return cls.id.name;
  if (parent && parent.type === 'VariableDeclarator' && parent.id.type === 'Identifier')
    return parent.id.name;
  if (parent && parent.type === 'AssignmentExpression') return memberPath(parent.left) || '';
  return '';
}

/**
 * The name a profiler shows for function `fn` whose ancestors are `anc` (innermost last): the
 * name V8 gives it (SharedFunctionInfo's debug name: its `name`, else the name inferred from an
 * assignment), as the JS Self-Profiling spec's "function instance name" and V8's own profiler
 * report it: methods `m`, accessors `get x` (no class prefix), constructors the class's name.
 */
function inferName(fn, anc, code) {
  const parent = anc[anc.length - 1];
  if (fn.id) return fn.id.name;
  if (!parent) return '';
  const accessor = (kind) => (kind === 'get' || kind === 'set' ? `${kind} ` : '');
  switch (parent.type) {
    case 'MethodDefinition':
      if (parent.kind === 'constructor') return className(anc[anc.length - 3], anc[anc.length - 4]);
      return `${accessor(parent.kind)}${keyName(parent.key, parent.computed, code)}`;
    case 'PropertyDefinition':
      if (parent.value !== fn) break;
      return keyName(parent.key, parent.computed, code);
    case 'Property':
      if (parent.value !== fn) break;
      return `${accessor(parent.kind)}${keyName(parent.key, parent.computed, code)}`;
    case 'VariableDeclarator':
      if (parent.init === fn && parent.id.type === 'Identifier') return parent.id.name;
      break;
    case 'AssignmentExpression':
      if (parent.right === fn) return memberPath(parent.left) || '';
      break;
    case 'AssignmentPattern':
      if (parent.right === fn && parent.left.type === 'Identifier') return parent.left.name;
      break;
    case 'ExportDefaultDeclaration':
      return 'default';
    default:
  }
  return '';
}

// Where V8 places a function (its profiler's and the spec's "column at which instance is
// defined"): the `(` of its parameter list, or the parameter of an arrow without parentheses.
// A method's, accessor's and constructor's function node already starts at the `(`.
function paramsStart(fn, code) {
  const from = fn.id ? fn.id.end : fn.start;
  const to = fn.body.start;
  for (const token of Parser.tokenizer(code.slice(from, to), { ecmaVersion: 'latest' })) {
    if (token.type === tokTypes.parenL) return from + token.start;
    if (token.type === tokTypes.arrow) break;
  }
  return fn.params.length ? fn.params[0].start : fn.start;
}

/** Names a pattern binds. */
function bound(p, out) {
  if (!p) return out;
  if (p.type === 'Identifier') out.push(p.name);
  else if (p.type === 'ObjectPattern')
    for (const q of p.properties) bound(q.type === 'RestElement' ? q.argument : q.value, out);
  else if (p.type === 'ArrayPattern') for (const q of p.elements) bound(q, out);
  else if (p.type === 'RestElement') bound(p.argument, out);
  else if (p.type === 'AssignmentPattern') bound(p.left, out);
  return out;
}

/** The var-declared names of a function body (not entering nested functions). */
function varNames(node, out) {
  if (FUNCTION.has(node.type) || node.type === 'ClassBody') return out;
  if (node.type === 'VariableDeclaration' && node.kind === 'var') {
    for (const d of node.declarations) bound(d.id, out);
  }
  children(node, (c) => varNames(c, out));
  return out;
}

/**
 * The body-level function declarations that cannot move into the body's `try` block: in a block
 * a function is lexically declared, so one named like a `var` of the body, or declared twice,
 * would be a SyntaxError. Those are moved ahead of the `try` (a function there cannot see the
 * body's let/const/class declarations; with such a name clash that combination is rare).
 */
function conflicting(stmts) {
  const fns = stmts.filter((st) => st.type === 'FunctionDeclaration');
  if (fns.length === 0) return [];
  const vars = new Set();
  for (const st of stmts)
    if (st.type !== 'FunctionDeclaration') varNames(st, []).forEach((n) => vars.add(n));
  const count = new Map();
  for (const f of fns) count.set(f.id.name, (count.get(f.id.name) || 0) + 1);
  return fns.filter((f) => vars.has(f.id.name) || count.get(f.id.name) > 1);
}

function children(node, visit) {
  for (const key in node) {
    if (key === 'loc' || key === 'type' || key === 'start' || key === 'end') continue;
    const v = node[key];
    if (Array.isArray(v)) {
      for (const c of v) if (c && typeof c.type === 'string') visit(c);
    } else if (v && typeof v.type === 'string') {
      visit(v);
    }
  }
}

/**
 * Instrument `code`. Options: `file` (the file name the map and frames name; default
 * 'input.js'), `url` (the resource frames are registered under; default `file`), `inputMap`
 * (a source map of `code`, object or JSON string), `sourceType` ('module' | 'script'; default:
 * module, then script), `stack` ('profiling', the default: the probes keep the stack only while
 * a profiler runs; 'always': from this file's first run on, for the whole realm, so a function
 * already running when a profiler starts is in its samples too, at the always-on cost: probes.js).
 * Returns { code, map, frames } (`frames`: [{name, url, line, column}]),
 * or the input unchanged ({ code, map: null, frames: [] }) when it was instrumented already.
 * Throws acorn's SyntaxError for code that does not parse.
 */
export function instrument(
  code,
  { file = 'input.js', url = file, inputMap = null, sourceType, stack = 'profiling' } = {},
) {
  if (stack !== 'profiling' && stack !== 'always')
    throw new TypeError(`instrument: stack must be 'profiling' or 'always', not ${String(stack)}`);
  if (code.includes(MARKER)) return { code, map: null, frames: [] };
  const ast = parse(code, sourceType);
  const s = new MagicString(code);
  const tracer = inputMap
    ? new TraceMap(typeof inputMap === 'string' ? JSON.parse(inputMap) : inputMap)
    : null;
  const fileHash = hash(`${url}\n${code.length}`);
  const base = `__psb_${fileHash}`;
  // The file's header as a hoisted function: a top-level function declaration can run before
  // the header's statement does (an ES module cycle calls it during another module's
  // evaluation), so it runs the header when `__pso` is not set yet: an ordinary one in its
  // switch test (`(__pso || init()).o`: init returns the switch), an async one or a generator
  // before its probe call. Every other function is created by code
  // that ran after the header, or inside a call of such a declaration (which ran it).
  const init = `__psh_${fileHash}`;
  const topLevel = (node) => {
    if (node.type !== 'FunctionDeclaration') return false;
    const parent = anc[anc.length - 1];
    if (parent.type === 'Program') return true;
    return parent.type.startsWith('Export') && anc[anc.length - 2].type === 'Program';
  };
  const frames = [];
  const anc = [];
  const fnStack = []; // {index, async, generator} of the enclosing instrumented functions

  const reenter = (f) => `__pst<0&&(__pst=__ps.e(${base}+${f.index}));`;

  // Line starts (after each line terminator, as acorn and V8 count lines), for a position's line
  // and column (1-based) by binary search.
  const lineStarts = [0];
  for (const m of code.matchAll(/\r\n?|[\n\u2028\u2029]/g)) lineStarts.push(m.index + m[0].length);
  function frameOf(fn) {
    const name = inferName(fn, anc, code);
    const at = paramsStart(fn, code);
    let lo = 0,
      hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    let line = lo + 1,
      column = at - lineStarts[lo] + 1;
    let resource = url;
    if (tracer) {
      const o = originalPositionFor(tracer, { line, column: column - 1 });
      if (o.source !== null && o.line !== null) {
        resource = o.source;
        line = o.line;
        column = o.column + 1;
      }
    }
    frames.push({ name, url: resource, line, column });
    return frames.length - 1;
  }

  function fn(node) {
    const index = frameOf(node);
    // Generators keep a `finally` exit (see the header); every other function exits once, after
    // its body's `try` (`return E` → `{__psv=E;break __psx}`), or in a `catch` that rethrows.
    const body = node.body;
    const single = !node.generator && body.type === 'BlockStatement'; // returns break to the exit
    const f = { index, async: node.async, generator: node.generator, returns: single };
    // Ordinary functions push and pop inline (no probe call while no profiler runs); async
    // functions and generators, whose frame is popped and re-entered around each suspension,
    // call the probes, which also accept the popped state (__pst = -1).
    const inline = !node.async && !node.generator;
    const id = `${base}+${index}`;
    const top = topLevel(node);
    // (a top-level declaration runs the header first if an ES module cycle calls it before the
    // header's statement ran: see `init`)
    const on = top ? `(__pso||${init}()).o` : '__pso.o';
    const push = `let __pst=-1,__psv;if(${on}){__pst=__pss[0];__pss[__pst+${B}]=${id};__pss[0]=__pst+1;${log(id, id)}}`;
    const ready = top ? `__pss||${init}(),` : '';
    const pop = `if(__pst>=0){__pss[0]=__pst;${log('~__pst', id)}}return __psv`;
    const enter = inline
      ? `${push}${single ? '__psx:' : ''}try{`
      : single
        ? `let __pst=(${ready}__ps.e(${id})),__psv;__psx:try{`
        : `let __pst=(${ready}__ps.e(${id}));try{`;
    const leave = node.generator
      ? '}finally{__ps.x(__pst)}'
      : '}catch(__pse){__ps.x(__pst);throw __pse}';
    const exit = inline ? pop : single ? 'return __ps.r(__psv,__pst)' : '';
    if (body.type !== 'BlockStatement') {
      // From after `=>` to the arrow's end: a parenthesized body's parens are outside `body`.
      const params = node.params;
      const from =
        code.indexOf('=>', params.length ? params[params.length - 1].end : node.start) + 2;
      // (an arrow is never a generator)
      if (inline) {
        s.appendRight(from, `{${enter}__psv=(`);
        s.prependLeft(node.end, `)${leave}${exit}}`);
      } else {
        s.appendRight(from, `{${enter}return __ps.r((`);
        s.prependLeft(node.end, `),__pst)${leave}}`);
      }
    } else {
      let at = body.start + 1;
      const stmts = body.body;
      let i = 0;
      for (; i < stmts.length && stmts[i].directive !== undefined; i++) at = stmts[i].end;
      for (const k of conflicting(stmts.slice(i))) s.move(k.start, k.end, at);
      if (at === body.end - 1) {
        s.appendLeft(at, enter + leave + exit); // nothing to wrap: one insertion keeps the order
      } else {
        s.appendRight(at, enter);
        s.prependLeft(body.end - 1, leave + exit);
      }
    }
    fnStack.push(f);
    anc.push(node);
    children(node, walk);
    anc.pop();
    fnStack.pop();
  }

  function ret(node) {
    // return E → { __psv = E; break __psx } (one exit after the try: less bytecode per return)
    const arg = node.argument;
    // (contentOnly: what was inserted at the same position, such as the function's enter, stays)
    s.overwrite(node.start, node.start + 6, arg ? '{__psv=' : '{__psv=void 0', {
      contentOnly: true,
    });
    // At one position the later prependLeft lands first: the closing brace goes in first.
    s.prependLeft(node.end, ';break __psx}');
    if (arg && arg.type === 'SequenceExpression') {
      s.appendRight(arg.start, '(');
      s.prependLeft(arg.end, ')');
    }
  }

  function suspend(node) {
    // await X / yield X / yield* X: pop after X, re-enter on resume.
    const f = fnStack[fnStack.length - 1];
    const e = `__pst=__ps.e(${base}+${f.index})`;
    const arg = node.argument;
    // Closings at one position: the later prependLeft lands first, so the outer one goes in first.
    s.appendRight(node.start, '__ps.q(');
    s.prependLeft(node.end, `,${e})`);
    if (arg) {
      s.appendRight(arg.start, '__ps.p(');
      s.prependLeft(arg.end, ',__pst=__ps.x(__pst))');
    } else {
      s.prependLeft(node.end, ' __ps.p(void 0,__pst=__ps.x(__pst))');
    }
  }

  function walk(node) {
    if (FUNCTION.has(node.type)) return fn(node);
    const f = fnStack[fnStack.length - 1];
    // A suspension belongs to the innermost function; arrows cannot yield.
    if (f && (node.type === 'AwaitExpression' || node.type === 'YieldExpression')) suspend(node);
    if (f && f.returns && node.type === 'ReturnStatement') ret(node);
    if (f && (f.async || f.generator)) {
      if (node.type === 'CatchClause') s.appendRight(node.body.start + 1, reenter(f));
      if (node.type === 'TryStatement' && node.finalizer)
        s.appendRight(node.finalizer.start + 1, reenter(f));
      if (node.type === 'ForOfStatement' && node.await) {
        // The loop's implicit awaits (next(), and the return() of an early exit) run with the
        // frame popped; the body runs with it, and so does the code after the loop.
        s.appendRight(node.right.start, '__ps.p(');
        s.prependLeft(node.right.end, ',__pst=__ps.x(__pst))');
        if (node.body.type === 'BlockStatement') {
          s.appendRight(node.body.start + 1, `${reenter(f)}try{`);
          s.prependLeft(node.body.end - 1, '}finally{__pst=__ps.x(__pst)}');
        } else {
          s.appendRight(node.body.start, `{${reenter(f)}try{`);
          s.prependLeft(node.body.end, '}finally{__pst=__ps.x(__pst)}}');
        }
        // Braces around the statement (around its labels: `continue label` must still name
        // the loop), then re-enter after it.
        let outer = node;
        for (let k = anc.length - 1; k >= 0 && anc[k].type === 'LabeledStatement'; k--)
          outer = anc[k];
        s.appendRight(outer.start, '{');
        s.prependLeft(outer.end, `;${reenter(f)}}`);
      }
    }
    anc.push(node);
    children(node, walk);
    anc.pop();
  }

  walk(ast);
  if (frames.length === 0) return { code, map: null, frames };

  // The header: the realm's probes (or the inlined fallback) and this file's frame table
  // (frames mapped through an input map may name several sources), in the hoisted `init`
  // (see above), called here unless a function of the file ran first.
  const urls = [...new Set(frames.map((f) => f.url))];
  const list = frames.map(
    (f) => `${JSON.stringify(f.name)},${urls.indexOf(f.url)},${f.line},${f.column}`,
  );
  const reg = `__ps.reg(${JSON.stringify(urls)},[${list.join(',')}])`;
  const key = JSON.stringify(PROBES_KEY);
  const header =
    `${MARKER}var __pso,__ps,__pss,${base};function ${init}(){` +
    `__ps=globalThis[Symbol.for(${key})]||(globalThis[Symbol.for(${key})]=(${PROBES_TEXT})());` +
    `${base}=${reg};__pss=__ps.S;` +
    `${stack === 'always' ? '__ps.use(1);' : ''}return __pso=__ps.C}` +
    `${base}===void 0&&${init}();`;
  let at = 0;
  if (code.startsWith('#!')) at = code.indexOf('\n') + 1 || code.length;
  for (const st of ast.body) {
    if (st.directive === undefined) break;
    at = st.end;
  }
  s.appendLeft(at, header);

  let map = s.generateMap({ source: file, file, includeContent: true, hires: true });
  if (inputMap)
    map = remapping(
      [map, typeof inputMap === 'string' ? JSON.parse(inputMap) : inputMap],
      () => null,
    );
  else map = JSON.parse(map.toString());
  return { code: s.toString(), map, frames };
}
