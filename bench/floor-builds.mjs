// The bench's floor builds (bench/instrument.mjs), cut from an instrumented file's text: what the
// transform emits for an ordinary function (glue/instrument/transform.js) matched literally.
//   stack: the stack kept on every call, switch or not (the push inline, the pop at the body's
//          end and before a call-free return inline, the other returns' pops the probes' `r`,
//          no logger): what any always-on shadow stack costs.
//   bare:  no probes at all: the transform's code shape alone (`__psr((E), 0)` at a return
//          that calls, `(0, E)` at one that does not; the header).
// (The stack build reads the stack without running the header first in a top-level declaration
// that an ES module cycle calls early; marked has no cycle.)
// Every ordinary function has one switch test and push, and a block body one pop at its end; a
// count that disagrees means the transform's text changed and these patterns must
// follow.
const ID = '__psb_\\w+\\+\\d+';
const PUSH = new RegExp(
  `let __pst=(?:__pso|\\(__pso\\|\\|__psh_\\w+\\(\\)\\))\\.o&&__pse\\((${ID})\\);`,
  'g',
);
// the exit at a block body's end
const POP = /;__pst&&\(__pss\[0\]=__pst-1\);/g;
// the pop before a return whose value calls nothing (`return (POP, E)`, `return void (POP)`)
const RET_POP = /__pst&&\(__pss\[0\]=__pst-1\)/g;

export function floorBuilds(code) {
  const n = {
    tests: (code.match(/\.o&&/g) || []).length,
    pushes: (code.match(PUSH) || []).length,
    pops: (code.match(POP) || []).length,
  };
  if (n.pushes === 0 || n.tests !== n.pushes || n.pops > n.pushes)
    throw new Error(`floor builds: the transform's text changed (${JSON.stringify(n)})`);
  return {
    stack: code
      .replace(PUSH, 'let __pst=__pss[0]+1;__pss[__pst+257]=$1;__pss[0]=__pst;')
      .replace(POP, ';__pss[0]=__pst-1;')
      .replace(RET_POP, '(__pss[0]=__pst-1)'),
    // (`__pst` stays 0: a `catch`'s or `finally`'s repair is a test that fails)
    bare: code.replace(PUSH, 'let __pst=0;').replace(POP, ';').replace(RET_POP, '0'),
  };
}
