/** Reading the units bin/run-svc-sensor.sh --systemd-unit writes, as systemd reads them. */

/** A unit file's settings: section -> key -> every value given, in order. Comments and blank
 *  lines are skipped; a key outside a section is an error. */
export function unitSections(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header) {
      current = sections[header[1]] ??= {};
      continue;
    }
    const setting = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!setting || !current) throw new Error(`not a unit file line: ${JSON.stringify(line)}`);
    (current[setting[1]] ??= []).push(setting[2]);
  }
  return sections;
}

const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', "'": "'", n: '\n', t: '\t' };

/** Splits a command line as systemd does for ExecStart= (and quadlet for PodmanArgs=): words
 *  separated by spaces, double quotes grouping, backslash escapes inside them, `%%` and `$$`
 *  standing for `%` and `$`. Other specifiers (%t, %n, %d) are kept as written. */
export function splitSystemdCommandLine(line: string): string[] {
  const words: string[] = [];
  let index = 0;
  while (index < line.length) {
    while (line[index] === ' ') index++;
    if (index >= line.length) break;
    let word = '';
    let quoted = false;
    while (index < line.length && (quoted || line[index] !== ' ')) {
      const character = line[index];
      if (character === '"') {
        quoted = !quoted;
        index++;
      } else if (character === '\\' && quoted) {
        const escaped = ESCAPES[line[index + 1]];
        if (escaped === undefined) throw new Error(`unknown escape \\${line[index + 1]} in ${line}`);
        word += escaped;
        index += 2;
      } else if ((character === '%' || character === '$') && line[index + 1] === character) {
        word += character;
        index += 2;
      } else {
        word += character;
        index++;
      }
    }
    if (quoted) throw new Error(`unterminated quote in ${line}`);
    words.push(word);
  }
  return words;
}
