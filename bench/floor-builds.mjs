// The bench's floor builds (bench/instrument.mjs), cut from an instrumented file's text: what the
// transform emits for an ordinary function (glue/instrument/transform.js) matched literally.
//   stack: the stack kept on every call, switch or not (the push and the pops), and no logging
//          tests: what any always-on shadow stack costs.
//   bare:  no probes at all: the transform's code shape alone (`__psv` at each return).
// (The stack build reads the stack without running the header first in a top-level declaration
// that an ES module cycle calls early; marked has no cycle.)
// Every inline function has one push and a logging test with it, and a block body one pop at
// its end with another; a count that disagrees means the transform's text changed and these
// patterns must follow.
const ID = '__psb_\\w+\\+\\d+';
const LOG_TEST = new RegExp(
  `if\\(__pss\\[1\\]&&\\(__pss\\[__pss\\[1\\]\\+\\+\\]=(?:~__pst|${ID}),__pss\\[1\\]===258\\|\\|!__pst\\|\\|` +
    `__pss\\[2\\]&&__ps\\.F\\[${ID}\\]\\|__ps\\.F\\[__pss\\[__pst\\+257\\]\\]\\)\\)__ps\\.l\\(__pst\\);`,
  'g',
);
// (after the logging tests are cut)
const PUSH = new RegExp(
  `let __pst=-1,__psv;if\\((?:__pso|\\(__pso\\|\\|__psh_\\w+\\(\\)\\))\\.o\\)\\{__pst=__pss\\[0\\];(__pss\\[__pst\\+258\\]=${ID};__pss\\[0\\]=__pst\\+1;)__pst\\|\\|__ps\\.z\\(\\);\\}`,
  'g',
);
// the exit at a block body's end, and at each return
const POP = /;if\(__pst>=0\)\{__pss\[0\]=__pst;\}/g;
const RET = /__pst<0\?__psv:__ps\.r\(__psv,__pst\)/g;

export function floorBuilds(code) {
  const cut = code.replace(LOG_TEST, '');
  const n = {
    logs: (code.match(LOG_TEST) || []).length,
    pushes: (cut.match(PUSH) || []).length,
    pops: (cut.match(POP) || []).length,
    returns: (cut.match(RET) || []).length,
  };
  if (n.pushes === 0 || n.pops > n.pushes || n.logs !== n.pushes + n.pops)
    throw new Error(`floor builds: the transform's text changed (${JSON.stringify(n)})`);
  return {
    stack: cut
      .replace(PUSH, 'let __pst=__pss[0],__psv;$1')
      .replace(POP, ';__pss[0]=__pst;')
      .replace(RET, '(__pss[0]=__pst,__psv)'),
    // (`__pst` stays -1: a `catch`'s or `finally`'s repair is a test that fails)
    bare: cut.replace(PUSH, 'let __pst=-1,__psv;').replace(POP, ';').replace(RET, '__psv'),
  };
}
