/**
 * The baseline of the synth figure: a cdktf app with no stacks, run the way cdktf.json runs
 * main.ts, so the difference is what main.ts builds and not node, bin/run-ts.js or cdktf loading.
 */
import { App } from 'cdktf';

new App().synth();
