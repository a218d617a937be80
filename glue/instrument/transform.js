// The instrumentation transform: parses a script or module with acorn and inserts enter/exit
// probes (glue/instrument/probes.js) into every function with magic-string, which only inserts
// and moves text, so the output keeps the input's lines and the source map is exact. An input
// source map is composed with ours (@jridgewell/remapping), and the frame table registers each
// function's name and position in the ORIGINAL source (through the input map when there is one).
//
// Per function (declarations, expressions, arrows, methods, accessors, constructors; async
// functions and generators too; not a tiny one, which calls nothing, loops nowhere and makes
// no function: tiny(), unless `everyFunction`), one text that differs from the next only in
// its frame id `__psb_H + i`: the push is a call to the probes (probes.js) and the pop a store
// of the depth into their stack, both made only while the switch `__pso.o` is on (a profiler
// runs), and no `try`:
//   { "directives"; let __pst = __pso.o && __pse(ID);
//     body, with every `return E` as `return __psr((E), __pst)` (`__psr`: the probes' `r`), or
//     where E calls nothing `return (__pst && (__pss[0] = __pst - 1), E)`
//     ;__pst && (__pss[0] = __pst - 1) }
// (`__pse` and `__pss`: the probes' `e` and stack `S`, bound by the header, so a push is a
// call of a binding and a pop a store into one: as `__ps.e(ID)`, a property read before each
// push call, Firefox's log sampler on marked took 1.42-1.46x against 1.38-1.39x, 240 rounds
// side by side; docs/instrument.md)
// (an async function or a generator enters with `let __pst = __pse(ID)`: its frame is popped
// and re-entered around each suspension by calls anyway). With no profiler an ordinary
// function's probes are the switch's read, a test of `__pst` at its end and at a return of a
// value that calls nothing, and the call of the identity `__psr` at a return of one that calls
// (inlined by the engines' JITs). An async generator's return awaits
// its value after the pop. The body stays the function's body: a `try` around it (stops 6-22)
// moved body-level declarations into a block, which changed their scope (a function named like
// a parameter, a sloppy `eval` declaring a var named like a function, Annex B functions, a
// function that had to move out of the block no longer seeing the body's `let`), lost a
// `finally`'s `break` over a `return`, and gave Rollup 3 a label to drop (issue 23, found with
// Test262: tools/test262-instrumented.mjs).
// An exception is not caught: the frames it leaves stay on the stack until the next probe of a
// function below that knows its depth repairs it: a `catch` or `finally` of it (`__ps.k`: its
// frame on top again; a `finally` also exits at its end, and the statement after it repairs
// again), its exit, or the probes' microtask reset (a push at depth 0 queues one: a microtask
// runs with an empty stack, so whatever an uncaught exception left is dropped by the end of the
// task; probes.js). In async functions and generators every `await`/`yield` pops the frame after
// its operand is evaluated and re-enters on resume; a `catch`/`finally` there re-enters (a
// rejected await lands there without the frame), and `for await` loops pop around their
// implicit awaits.
// Functions inside `with (o)`, and functions whose own body has a `with`, get no probes: every
// name there, the probes' too, would be looked up through `o` first.
// Names: every name added starts with `__ps`, or `__ps0_`, `__ps1_` … when the input contains
// that text anywhere (a string passed to a direct `eval` included). A module binds the probes
// with `var`s of its own; a classic script (or a file that may be loaded as one) as
// non-enumerable global properties named after the probes' version, so nothing is added to
// `Object.keys(globalThis)` and two perfshim versions on one page keep apart. The output is
// parsed again before it is returned: a mistake of ours is an error, not a file that does not
// load. Known deviation: `Function.prototype.toString` returns the instrumented text
// (docs/instrument.md).
//
// Costs: one parse, one walk, O(functions) insertions, and a second parse of the output; the
// output grows by ~470 bytes a function (and ~45 a return) plus the header once per file: the
// frame table, and the probe runtime (~1.6 KB, one line) unless `probes` names a module to
// import it from (the bundler plugins: one runtime per bundle).
import { Parser, tokTypes } from 'acorn';
import MagicString from 'magic-string';
import remapping from '@jridgewell/remapping';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { createProbes, PROBES_KEY } from './probes.js';

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

// Annex B: in sloppy code a call may be an assignment target (`f() = 1`, `f()++`,
// `for (f() in o)`: valid syntax that throws a ReferenceError when it runs), which acorn refuses.
const AcornParser = Parser.extend(
  (P) =>
    class extends P {
      toAssignable(node, isBinding, errors) {
        if (node && node.type === 'CallExpression' && !isBinding && !this.strict) return node;
        return super.toAssignable(node, isBinding, errors);
      }
      checkLValSimple(expr, bindingType = 0, clashes) {
        if (expr.type === 'CallExpression' && bindingType === 0 && !this.strict) return;
        return super.checkLValSimple(expr, bindingType, clashes);
      }
    },
);

const PARSE = { ecmaVersion: 'latest', locations: true, allowHashBang: true };

/** acorn's parse of input no deeper than MAX_BRACKETS. acorn parses by recursion, ~10 frames
 *  per bracket level: deeper input can exhaust the stack, and there V8 aborts the process
 *  instead of throwing (acorn's own guard runs a regular expression, "RegExpCompiler Allocation
 *  failed"; 300 nested function expressions, ~600 levels, did now and then). So the tokens'
 *  nesting is measured first, without recursion: too deep is a RangeError, as for functions
 *  nested deeper than MAX_DEPTH (the input is valid, only too deep for the transform). */
function parse(code, sourceType) {
  let depth = 0;
  try {
    for (const t of Parser.tokenizer(code, { ...PARSE, sourceType: sourceType || 'module' })) {
      const type = t.type;
      if (type === tokTypes.parenL || type === tokTypes.bracketL || type === tokTypes.braceL)
        depth++;
      else if (type === tokTypes.dollarBraceL) depth++;
      else if (type === tokTypes.parenR || type === tokTypes.bracketR || type === tokTypes.braceR)
        depth--;
      if (depth > MAX_BRACKETS)
        throw new RangeError(
          `instrument: input nested more than ${MAX_BRACKETS} brackets deep at offset ${t.start}`,
        );
    }
  } catch (e) {
    if (e instanceof RangeError) throw e;
    // (the tokenizer's own errors: the parse below says what is wrong, in its mode)
  }
  try {
    return parseAs(code, sourceType);
  } catch (e) {
    // (other chains acorn parses by recursion, without brackets: its guard's SyntaxError)
    if (e instanceof SyntaxError && /stack space/.test(e.message))
      throw new RangeError(`instrument: input nested too deep to parse (${e.message})`);
    throw e;
  }
}

function parseAs(code, sourceType) {
  if (sourceType) return AcornParser.parse(code, { ...PARSE, sourceType });
  try {
    return AcornParser.parse(code, { ...PARSE, sourceType: 'module' });
  } catch (e) {
    // Sloppy scripts (with, octal literals, `arguments` as a name …) do not parse as modules.
    try {
      return AcornParser.parse(code, {
        ...PARSE,
        sourceType: 'script',
        allowReturnOutsideFunction: true,
      });
    } catch {
      throw e;
    }
  }
}

/** Whether a parsed module must be one (imports, exports, import.meta, top-level await). */
function isModule(ast) {
  let found = false;
  const visit = (node) => {
    if (found) return;
    const t = node.type;
    if (t.startsWith('Import') || t.startsWith('Export') || t === 'MetaProperty') found = true;
    else if (t === 'AwaitExpression' || (t === 'ForOfStatement' && node.await)) found = true;
    else if (!FUNCTION.has(t)) children(node, visit);
  };
  visit(ast);
  return found;
}

/**
 * The names the transform adds, none of which the input may contain anywhere (in a string
 * either: a direct `eval` can declare any name it is given): `__ps…`, else `__ps0_…`,
 * `__ps1_…`. A classic script's file-level bindings are global properties: the shared ones
 * carry the probes' version.
 */
function names(code, module) {
  let p = '__ps';
  for (let i = 0; code.includes(p); i++) p = `__ps${i}_`;
  const g = module ? p : `${p}${PROBES_KEY.slice(PROBES_KEY.lastIndexOf('.') + 1)}_`;
  return {
    t: `${p}t`,
    ps: g,
    o: `${g}o`,
    r: `${g}r`,
    b: `${g}b`,
    h: `${g}h`,
    g: `${p}g`,
    s: `${g}s`,
    e: `${g}e`,
  };
}

/** The output must load: a name clash or an insertion in the wrong place is a bug of ours,
 *  reported here rather than by the host that loads the file. */
function verify(out, sourceType, file) {
  try {
    AcornParser.parse(out, {
      ...PARSE,
      sourceType,
      allowReturnOutsideFunction: sourceType === 'script',
    });
  } catch (e) {
    throw new SyntaxError(
      `instrument: the instrumented ${file} would not load (${e.message}): a perfshim bug, please report it with this input`,
    );
  }
}

/** Where an arrow's `=>` ends, searching from `from` (tokens: a comment may contain `=>`). */
function arrowEnd(code, from) {
  for (const token of Parser.tokenizer(code.slice(from), { ecmaVersion: 'latest' }))
    if (token.type === tokTypes.arrow) return from + token.end;
  throw new SyntaxError('instrument: an arrow function without =>');
}

/** Whether a function body has a `with` statement of its own (not in nested functions). */
// What can take time in a function besides its own statements: a call (of any kind, a tagged
// template, `new`, `super()`), a suspension, a loop, iteration (spread, array destructuring,
// `yield*`), and the functions and classes it makes (which may run before it returns: a callback
// passed along is a call already).
const NOT_TINY = new Set([
  'CallExpression',
  'NewExpression',
  'TaggedTemplateExpression',
  'ImportExpression',
  'AwaitExpression',
  'YieldExpression',
  'ForStatement',
  'ForInStatement',
  'ForOfStatement',
  'WhileStatement',
  'DoWhileStatement',
  'SpreadElement',
  'ArrayPattern',
  'ClassExpression',
  'ClassDeclaration',
  'FunctionExpression',
  'FunctionDeclaration',
  'ArrowFunctionExpression',
]);

/** Whether the nodes `list` do none of what NOT_TINY lists. (A stack, not recursion: the
 *  walk's depth guard has not seen them yet.) */
function callFree(...list) {
  const todo = list;
  while (todo.length) {
    const node = todo.pop();
    if (NOT_TINY.has(node.type)) return false;
    children(node, (c) => todo.push(c));
  }
  return true;
}

/** Whether function `fn` does none of what NOT_TINY lists in its parameters or body (a default
 *  parameter may call): its run time is bounded by its own length. */
const tiny = (fn) => !fn.async && !fn.generator && callFree(...fn.params, fn.body);

function hasWith(node) {
  if (node.type === 'WithStatement') return true;
  if (FUNCTION.has(node.type)) return false;
  let found = false;
  children(node, (c) => {
    found ||= hasWith(c);
  });
  return found;
}

// Deeper nesting than this is refused with a RangeError: with the walk's recursion that deep, a
// regular expression (acorn's, magic-string's) can run out of stack, which V8 does not throw
// but aborts the process on ("RegExpCompiler Allocation failed": 500 nested functions did). V8
// itself compiles no more than ~1,000 nested functions.
export const MAX_DEPTH = 200;
const MAX_NODES_DEEP = 800;
// acorn's recursion, ~10 frames a bracket level, is safe to ~600 levels on Node's default stack
// (see parse): refused from 400 on.
const MAX_BRACKETS = 400;

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
 * already running when a profiler starts is in its samples too, at the always-on cost: probes.js),
 * `everyFunction` (default false: a function that calls nothing, loops nowhere and makes no
 * function gets no probes, its time its caller's; true: every function), `composeMap` (default
 * true: the returned map is composed through `inputMap`, so it leads to
 * the original sources; false: it is relative to `code`, for a bundler that composes the chain
 * itself; frames are registered through `inputMap` either way), `probes` ('inline', the default:
 * the header carries the probes' runtime as its fallback; or a module specifier whose
 * `getProbes` export the header imports, so a bundle carries the runtime once, not once per
 * file; modules only: a classic script keeps the inline fallback).
 * Returns { code, map, frames } (`frames`: [{name, url, line, column}]),
 * or the input unchanged ({ code, map: null, frames: [] }) when it was instrumented already.
 * Throws acorn's SyntaxError for code that does not parse, and a RangeError for functions
 * nested deeper than MAX_DEPTH.
 */
export function instrument(
  code,
  {
    file = 'input.js',
    url = file,
    inputMap = null,
    sourceType,
    stack = 'profiling',
    composeMap = true,
    probes: runtime = 'inline',
    everyFunction = false,
  } = {},
) {
  if (stack !== 'profiling' && stack !== 'always')
    throw new TypeError(`instrument: stack must be 'profiling' or 'always', not ${String(stack)}`);
  if (typeof runtime !== 'string' || runtime === '')
    throw new TypeError(
      `instrument: probes must be 'inline' or a module specifier, not ${String(runtime)}`,
    );
  const ast = parse(code, sourceType);
  // Where the header goes: after a hashbang and the directive prologue. A file is instrumented
  // already when the header is there, not when the marker's text appears anywhere.
  let at = 0;
  if (code.startsWith('#!')) at = code.indexOf('\n') + 1 || code.length;
  for (const st of ast.body) {
    if (st.directive === undefined) break;
    at = st.end;
  }
  const headerAt = at;
  if (
    code
      .slice(at)
      .replace(/^[;\s]*/, '')
      .startsWith(MARKER)
  )
    return { code, map: null, frames: [] };
  const module = ast.sourceType === 'module' && isModule(ast);
  const N = names(code, module);
  const s = new MagicString(code);
  const tracer = inputMap
    ? new TraceMap(typeof inputMap === 'string' ? JSON.parse(inputMap) : inputMap)
    : null;
  const fileHash = hash(`${url}\n${code.length}`);
  const base = `${N.b}_${fileHash}`;
  // The file's header as a hoisted function (modules only): a top-level function declaration
  // can run before the header's statement does (an ES module cycle calls it during another
  // module's evaluation), so it runs the header when the switch is not bound yet: an ordinary
  // one in its switch test (`(O || init()).o`: init returns the switch), an async one or a
  // generator before its probe call. Every other function is created by code that ran after
  // the header, or inside a call of such a declaration (which ran it). A classic script's
  // functions cannot run before its first statement, nor can those of a module that imports
  // nothing (it is in no cycle: its body runs before anyone can call it; 0.2 % of marked's
  // instrumented bytes).
  const init = `${N.h}_${fileHash}`;
  const imports = ast.body.some(
    (st) => st.type === 'ImportDeclaration' || (st.type.startsWith('Export') && st.source),
  );
  const topLevel = (node) => {
    if (!module || !imports || node.type !== 'FunctionDeclaration') return false;
    const parent = anc[anc.length - 1];
    if (parent.type === 'Program') return true;
    return parent.type.startsWith('Export') && anc[anc.length - 2].type === 'Program';
  };
  const frames = [];
  const anc = [];
  // The enclosing function's state: {index, inline, async, generator}, or null where code runs
  // outside the function's own activation (a class body's field initializers and static
  // blocks) or where probes must not go (inside `with`: see `skipped`).
  const fnStack = [];
  const { t: T, ps: PS, r: R } = N;

  const reenter = (f) => `${T}?${PS}.k(${T}):${T}=${N.e}(${base}+${f.index});`;
  const repair = (f) => (f.inline ? `${T}&&${PS}.k(${T});` : reenter(f));
  // An ordinary function's pop: a store of the depth before its frame, no call (probes.js: a
  // call on the exits' paths, once a profiler made them taken, slowed the functions for the
  // rest of the page in SpiderMonkey).
  const pop = `${T}&&(${N.s}[0]=${T}-1)`;

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
    if (fnStack.length >= MAX_DEPTH || anc.length >= MAX_NODES_DEEP)
      throw new RangeError(
        `instrument: functions nested more than ${MAX_DEPTH} deep at ${lineOf(node.start)}`,
      );
    // Inside `with (o)` every name, the probes' too, is looked up through `o` first: functions
    // there, and functions whose own body has a `with`, get no probes (their time is their
    // caller's).
    // A function that calls nothing, loops nowhere and makes no function (tiny(): a getter, a
    // `() => null`) runs in a time bounded by its own length: its time is its caller's, as in
    // a native profile whose JIT inlined it, unless `everyFunction`.
    if (withDepth > 0 || hasWith(node.body) || (!everyFunction && tiny(node))) {
      walkOutsideFrames(node);
      return;
    }
    const index = frameOf(node);
    // Ordinary functions call the probes only while the switch is on; async functions and
    // generators, whose frame is popped and re-entered around each suspension, call them anyway
    // (they also accept the popped state, 0).
    const inline = !node.async && !node.generator;
    const f = { index, inline, async: node.async, generator: node.generator };
    const id = `${base}+${index}`;
    const top = topLevel(node);
    // (a top-level declaration runs the header first if an ES module cycle calls it before the
    // header's statement ran: see `init`)
    const on = top ? `(${N.o}||${init}()).o` : `${N.o}.o`;
    const ready = top ? `${N.e}||${init}(),` : '';
    const enter = inline ? `let ${T}=${on}&&${N.e}(${id});` : `let ${T}=(${ready}${N.e}(${id}));`;
    // (the `;`: the body's last statement may end by ASI)
    const exit = inline ? `;${pop};` : `;${PS}.x(${T});`;
    const body = node.body;
    if (body.type !== 'BlockStatement') {
      // An arrow's expression body: `{ enter; return exit(expr) }`, from after the `=>` (found
      // by token: a comment between the parameters and the arrow may contain `=>`).
      const params = node.params;
      const from = arrowEnd(code, params.length ? params[params.length - 1].end : node.start);
      if (inline && callFree(body)) {
        s.appendRight(from, `{${enter}return(${pop},`);
        s.prependLeft(node.end, ')}');
      } else {
        s.appendRight(from, `{${enter}return ${returned(f, '(')}`);
        s.prependLeft(node.end, `${returned(f, ')')}}`);
      }
    } else {
      let at = body.start + 1;
      const stmts = body.body;
      let i = 0;
      for (; i < stmts.length && stmts[i].directive !== undefined; i++) at = stmts[i].end;
      // (a directive ended by ASI: the probes must not continue its line)
      const semi = i > 0 && code[at - 1] !== ';' ? ';' : '';
      if (at === body.end - 1) s.appendLeft(at, semi + enter + exit);
      else {
        s.appendRight(at, semi + enter);
        s.prependLeft(body.end - 1, exit);
      }
    }
    fnStack.push(f);
    anc.push(node);
    children(node, walk);
    anc.pop();
    fnStack.pop();
  }

  // `return E` → `return __psr((E), T)`: the probes' `r`, bound by the header (a call of the
  // file's own binding: ~1 ns a call less than `__ps.r` in V8, bench/instrument-exits.mjs), the
  // identity with no profiler (T is 0). An async generator's return awaits its value after the
  // frame is popped. In an ordinary function, an E that calls nothing (callFree: nothing it runs
  // can be on the stack above this frame) is `(POP, E)`, and a bare `return` is
  // `return void (POP)` (`pop`, above): the frame pops first, and with no profiler nothing is
  // called. A call at every return, executed even as the identity, cost V8 16 % of Preact's
  // render with no profiler (bench/instrument-preact.mjs's "never profiled" row: the JIT
  // inlines less around it); most of a framework's hot returns return a value it has.
  function returned(f, part) {
    return part === '(' ? `${R}((` : `),${T})`;
  }

  function ret(node, f) {
    const arg = node.argument;
    // (contentOnly: what was inserted at the same position stays)
    if (!arg && f.async && f.generator) {
      // An async generator's bare `return;` does not await (an expression would: one more tick,
      // Test262's return-undefined-implicit-and-explicit): pop, then return as written.
      s.overwrite(node.start, node.start + 6, `{${T}=${PS}.x(${T});return`, { contentOnly: true });
      s.prependLeft(node.end, '}');
      return;
    }
    if (!arg) {
      const exit = f.inline ? `void(${pop})` : `${returned(f, '(')}void 0${returned(f, ')')}`;
      s.overwrite(node.start, node.start + 6, `return ${exit}`, { contentOnly: true });
      return;
    }
    // (the space: `return"s"`; at the operand's end the later prependLeft lands first, so an
    // `await` operand's own closings, inserted after this, stay inside)
    if (f.inline && callFree(arg)) {
      s.appendRight(arg.start, ` (${pop},`);
      s.prependLeft(arg.end, ')');
      return;
    }
    s.appendRight(arg.start, ` ${returned(f, '(')}`);
    s.prependLeft(arg.end, returned(f, ')'));
  }

  function suspend(node, f) {
    // await X / yield X / yield* X: pop after X, re-enter on resume. (The leading space: the
    // operand may follow the keyword directly, as in `yield/re/` or `await-1`.)
    const e = `${T}=${N.e}(${base}+${f.index})`;
    const arg = node.argument;
    // Closings at one position: the later prependLeft lands first, so the outer one goes in first.
    s.appendRight(node.start, `${PS}.p(`);
    s.prependLeft(node.end, `,${e})`);
    if (arg) {
      s.appendRight(arg.start, ` ${PS}.p(`);
      s.prependLeft(arg.end, `,${T}=${PS}.x(${T}))`);
    } else {
      s.prependLeft(node.end, ` ${PS}.p(void 0,${T}=${PS}.x(${T}))`);
    }
  }

  /** Walk `node`'s children as code of no instrumented function (no frame to push or pop). */
  function walkOutsideFrames(node) {
    fnStack.push(null);
    anc.push(node);
    children(node, walk);
    anc.pop();
    fnStack.pop();
  }

  let withDepth = 0;
  function walk(node) {
    if (FUNCTION.has(node.type)) return fn(node);
    const f = fnStack[fnStack.length - 1];
    if (f) {
      // A suspension belongs to the innermost function; arrows cannot yield.
      if (node.type === 'AwaitExpression' || node.type === 'YieldExpression') suspend(node, f);
      if (node.type === 'ReturnStatement') ret(node, f);
      // Where an exception lands in the function (its `catch`), and in a `finally`, its frame
      // is the top of the stack again: callees an exception left behind are dropped; an async
      // function or generator whose rejected `await` landed there re-enters.
      if (node.type === 'CatchClause') s.appendRight(node.body.start + 1, repair(f));
      // A `finally` also exits at its end (the function may be leaving through it: a return
      // in the `try` popped already, an exception did not), and the code after the statement,
      // reached only when it completed normally, repairs again.
      if (node.type === 'TryStatement' && node.finalizer) {
        // (in braces: the statement may be an `if`'s branch or a loop's body)
        const exit = f.inline ? `;${pop};` : `;${T}=${PS}.x(${T});`;
        // (an empty `finally {}`: one insertion, the repair first; two at the same position
        // would put the exit first, and a return's frame would stay on the stack)
        if (node.finalizer.body.length === 0)
          s.appendRight(node.finalizer.start + 1, repair(f) + exit);
        else {
          s.appendRight(node.finalizer.start + 1, repair(f));
          s.prependLeft(node.finalizer.end - 1, exit);
        }
        s.appendRight(node.start, '{');
        s.prependLeft(node.end, `;${repair(f)}}`);
      }
      if (node.type === 'ForOfStatement' && node.await) forAwait(node, f);
    }
    if (node.type === 'ClassBody') {
      // Field initializers and static blocks are not the enclosing function's activation.
      walkOutsideFrames(node);
      return;
    }
    if (node.type === 'WithStatement') withDepth++;
    anc.push(node);
    children(node, walk);
    anc.pop();
    if (node.type === 'WithStatement') withDepth--;
  }

  function forAwait(node, f) {
    // The loop's implicit awaits (next(), and the return() of an early exit) run with the
    // frame popped; the body runs with it, and so does the code after the loop. Braces around
    // the statement (around its labels: `continue label` must still name the loop) first, so
    // that at the loop's end its closing lands after the body's.
    let outer = node;
    for (let k = anc.length - 1; k >= 0 && anc[k].type === 'LabeledStatement'; k--) outer = anc[k];
    s.appendRight(outer.start, '{');
    s.prependLeft(outer.end, `;${reenter(f)}}`);
    s.appendRight(node.right.start, `${PS}.p(`);
    s.prependLeft(node.right.end, `,${T}=${PS}.x(${T}))`);
    const block = node.body.type === 'BlockStatement';
    s.appendRight(
      block ? node.body.start + 1 : node.body.start,
      `${block ? '' : '{'}${reenter(f)}try{`,
    );
    s.prependLeft(
      block ? node.body.end - 1 : node.body.end,
      `}finally{${T}=${PS}.x(${T})}${block ? '' : '}'}`,
    );
  }

  const lineOf = (pos) => {
    let line = 1;
    for (const st of lineStarts) if (st <= pos) line++;
    return `${file}:${line - 1}`;
  };

  walk(ast);
  if (frames.length === 0) return { code, map: null, frames };

  // The header: the realm's probes (or the inlined fallback) and this file's frame table
  // (frames mapped through an input map may name several sources).
  const urls = [...new Set(frames.map((f) => f.url))];
  // (per frame: the line's difference from the frame before's, and the column, a difference too
  // when the line is the same, in base 36; the names joined, the separator first;
  // probes.js's `readFrameTable` reads them)
  let line = 0,
    column = 0;
  const positions = frames.map((f) => {
    const d = `${(f.line - line).toString(36)},${(f.line === line ? f.column - column : f.column).toString(36)}`;
    line = f.line;
    column = f.column;
    return urls.length > 1 ? `${urls.indexOf(f.url).toString(36)},${d}` : d;
  });
  const frameNames = frames.map((f) => f.name);
  // (the names' separator: a comma, or the first character from U+0001 up that no name holds)
  let sep = ',';
  for (let c = 1; frameNames.some((n) => n.includes(sep)); c++) sep = String.fromCharCode(c);
  const table =
    `${frames.length},${JSON.stringify(urls)},` +
    `${JSON.stringify(sep + frameNames.join(sep))},` +
    `"${positions.join(',')}"`;
  const key = JSON.stringify(PROBES_KEY);
  // (a module may import the runtime instead: one copy per bundle; the import comes first, so
  // the runtime's module is evaluated before this one's, even in an import cycle)
  const imported = module && runtime !== 'inline';
  const probes = imported
    ? `${N.g}()`
    : `globalThis[Symbol.for(${key})]||(globalThis[Symbol.for(${key})]=(${PROBES_TEXT})())`;
  const always = stack === 'always' ? `${PS}.use(1);` : '';
  let header;
  if (module) {
    // A module's bindings are its own: `var`s and the hoisted `init` (see above), called here
    // unless a function of the file ran first.
    header =
      `${MARKER}${imported ? `import{getProbes as ${N.g}}from${JSON.stringify(runtime)};` : ''}` +
      `var ${N.o},${PS},${R},${N.s},${N.e},${base};${base}===void 0&&${init}();`;
    // (`init`'s text after the last statement, before a trailing comment such as a source
    // map's: hoisted, it runs from the header all the same, and its frame table sits after the
    // code whose names it repeats, for gzip to find; the `;`: the statement may end by ASI)
    s.appendLeft(
      ast.body[ast.body.length - 1].end,
      `;function ${init}(){` +
        `${PS}=${probes};${base}=${PS}.reg(${table});` +
        `${R}=${PS}.r;${N.s}=${PS}.S;${N.e}=${PS}.e;${always}return ${N.o}=${PS}.C}`,
    );
  } else {
    // A classic script (or a file that may be loaded as one): nothing enumerable on the global
    // object (for-in, Object.keys: mocha's --check-leaks, sandboxes), so the bindings are
    // non-enumerable global properties; the shared ones are named after the probes' version
    // (two perfshim versions on one page keep apart), the frame base after the file.
    header =
      `${MARKER};(()=>{const ${PS}=${probes},d=(n,v)=>Object.defineProperty(globalThis,n,` +
      `{value:v,writable:true,configurable:true});d(${JSON.stringify(PS)},${PS});` +
      `d(${JSON.stringify(N.o)},${PS}.C);d(${JSON.stringify(R)},${PS}.r);` +
      `d(${JSON.stringify(N.s)},${PS}.S);d(${JSON.stringify(N.e)},${PS}.e);` +
      `d(${JSON.stringify(base)},${PS}.reg(${table}));${always}})();`;
  }
  s.appendLeft(headerAt, header);

  const out = s.toString();
  verify(out, ast.sourceType, file);
  let map = s.generateMap({ source: file, file, includeContent: true, hires: true });
  if (inputMap && composeMap)
    map = remapping(
      [map, typeof inputMap === 'string' ? JSON.parse(inputMap) : inputMap],
      () => null,
    );
  else map = JSON.parse(map.toString());
  return { code: out, map, frames };
}
