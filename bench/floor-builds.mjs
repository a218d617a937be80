// The bench's floor builds (bench/instrument.mjs), cut from an instrumented file's text: what the
// transform emits for an ordinary function (glue/instrument/transform.js) matched literally.
//   stack: the stack kept on every call, switch or not (the push, the pop and the `try`), and no
//          logging tests: what any always-on shadow stack costs (the design before stop 22).
//   bare:  no probes at all: the transform's code shape alone (labels, `__psv`, one exit).
// (The stack build reads the stack without running the header first in a top-level declaration
// that an ES module cycle calls early; marked has no cycle.)
// Every inline function has one push, one pop and two logging tests; a count that disagrees
// means the transform's text changed and these patterns must follow.
const ID = '__psb_\\w+\\+\\d+';
const LOG_TEST = new RegExp(
  `if\\(__pss\\[1\\]&&\\(__pss\\[__pss\\[1\\]\\+\\+\\]=(?:~__pst|${ID}),__pss\\[1\\]===258\\|\\|!__pst\\|\\|` +
    `__pss\\[2\\]&&__ps\\.F\\[${ID}\\]\\|__ps\\.F\\[__pss\\[__pst\\+257\\]\\]\\)\\)__ps\\.l\\(__pst\\);`,
  'g',
);
// (after the logging tests are cut)
const PUSH = new RegExp(
  `let __pst=-1,__psv;if\\((?:__pso|\\(__pso\\|\\|__psh_\\w+\\(\\)\\))\\.o\\)\\{(__pst=__pss\\[0\\];__pss\\[__pst\\+258\\]=${ID};__pss\\[0\\]=__pst\\+1;)\\}((?:__psx:)?)try\\{`,
  'g',
);
const POP =
  /\}catch\(__pse\)\{__ps\.x\(__pst\);throw __pse\}if\(__pst>=0\)\{__pss\[0\]=__pst;\}return __psv/g;

export function floorBuilds(code) {
  const cut = code.replace(LOG_TEST, '');
  const n = {
    logs: (code.match(LOG_TEST) || []).length,
    pushes: (cut.match(PUSH) || []).length,
    pops: (cut.match(POP) || []).length,
  };
  if (n.pushes === 0 || n.pops !== n.pushes || n.logs !== 2 * n.pushes)
    throw new Error(`floor builds: the transform's text changed (${JSON.stringify(n)})`);
  return {
    stack: cut
      .replace(PUSH, 'let __pst,__psv;$1$2try{')
      .replace(POP, '}catch(__pse){__ps.x(__pst);throw __pse}__pss[0]=__pst;return __psv'),
    bare: cut.replace(PUSH, 'let __psv;$2{').replace(POP, '}return __psv'),
  };
}
