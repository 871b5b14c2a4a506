/** How both demos (demo.ts, demo-client.ts) print: numbered steps and indented details under them. */

let stepNumber = 0;

/** Prints the next numbered step's title. */
export function step(title: string): void {
  stepNumber += 1;
  console.log(`\n[${stepNumber}] ${title}`);
}

/** Prints one line under the current step. */
export function detail(line: string): void {
  console.log(`    ${line}`);
}
