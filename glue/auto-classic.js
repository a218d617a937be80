// The classic-script build (dist/perfshim.auto.js): `<script src=".../perfshim.auto.js">` in a
// page, or importScripts() in a worker, installs synchronously and exposes `perfshim`.
// `<script src=... data-force>` installs over a conforming host too.
import * as perfshim from './index.js';
import { installClassic, nameFunctions } from './classic.js';

nameFunctions(perfshim);
installClassic(perfshim);
