/**
 * Reading the help pages as data: which pages exist, their fenced code blocks, sections,
 * links and headings, and the shell commands of their ```sh blocks. Shared by the tests that
 * keep help/ true (examples type-check, commands run, quoted messages exist, links resolve).
 */
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

export const repositoryRoot = path.join(__dirname, '..', '..', '..');
export const helpDirectory = path.join(repositoryRoot, 'help');

/** Every page under help/, as a path relative to help/ with forward slashes, sorted. */
export function helpPages(): string[] {
  const pages: string[] = [];
  const walk = (directory: string, prefix: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(directory, entry.name), `${prefix}${entry.name}/`);
      else if (entry.name.endsWith('.md')) pages.push(`${prefix}${entry.name}`);
    }
  };
  walk(helpDirectory, '');
  return pages.sort();
}

export function readPage(page: string): string {
  return readFileSync(path.join(helpDirectory, page), 'utf8');
}

export interface CodeBlock {
  readonly page: string;
  /** The fence's language word (`ts`, `sh`, `hcl`, ...); '' for a bare fence. */
  readonly language: string;
  readonly code: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The `## ` heading the block sits under (undefined before the first). */
  readonly section: string | undefined;
}

/** The fenced code blocks of a page, in order. */
export function codeBlocks(page: string, markdown = readPage(page)): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  let currentSection: string | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const heading = /^## (.+)$/.exec(lines[index]!);
    if (heading !== null) currentSection = heading[1]!.trim();
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[index]!);
    if (open === null) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) {
      body.push(lines[end]!.slice(Math.min(indent, lines[end]!.length - lines[end]!.trimStart().length)));
      end += 1;
    }
    blocks.push({ page, language: open[2]!, code: body.join('\n') + '\n', line: index + 1, section: currentSection });
    index = end;
  }
  return blocks;
}

/** The text under `## <heading>` (or `### `) up to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{2,3} /.test(line) && line.replace(/^#+ /, '').trim() === heading);
  if (start < 0) return '';
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((line, index) => index > start && new RegExp(`^#{1,${level}} `).test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings (outside code blocks). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = /^#{1,6} (.+)$/.exec(line);
    if (!inFence && heading !== null) anchors.add(headingAnchor(heading[1]!));
  }
  return anchors;
}

/** The page text without its fenced code blocks (links and quotes in code are not prose). */
export function prose(markdown: string): string {
  return markdown.replace(/^\s*```[^\n]*\n[\s\S]*?^\s*```\s*$/gm, '');
}

export interface Link {
  readonly target: string;
  readonly anchor: string | undefined;
}

/** Local markdown links `[text](target#anchor)` of the prose (web links left out). */
export function localLinks(markdown: string): Link[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]*)\)/g)]
    .map((match) => match[1]!)
    .filter((link) => !/^[a-z]+:/.test(link))
    .map((link) => {
      const hash = link.indexOf('#');
      return hash < 0 ? { target: link, anchor: undefined } : { target: link.slice(0, hash), anchor: link.slice(hash + 1) };
    });
}

/** The cells of a markdown table line; `\|` is a pipe inside a cell. */
export function tableCells(line: string): string[] {
  return line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** The data rows of the markdown tables in `text` (header and rule lines skipped). */
export function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (!line.startsWith('|')) continue;
    if (/^\|[\s:|-]+\|$/.test(line)) continue;
    if (index + 1 < lines.length && /^\|[\s:|-]+\|$/.test(lines[index + 1]!)) continue; // a header line
    rows.push(tableCells(line));
  }
  return rows;
}

/** The `code` spans of a string. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}

export interface ShellCommand {
  readonly page: string;
  /** The command as a shell would run it: continuation lines joined, heredoc bodies and loop bodies included. */
  readonly command: string;
  /** 1-based line of the block's opening fence. */
  readonly blockLine: number;
  /** The `## ` heading the block sits under. */
  readonly section: string | undefined;
}

/**
 * The commands of a ```sh block: comment lines and trailing comments dropped, `\` continuations
 * joined, a heredoc kept with its body up to its terminator, a `for`/`while`/`if` kept whole.
 * Lines starting with `#` are output or notes, never commands.
 */
export function shellCommands(block: CodeBlock): ShellCommand[] {
  const lines = block.code.split('\n');
  const commands: ShellCommand[] = [];
  let index = 0;
  const stripComment = (line: string): string => {
    // A ` #` outside quotes starts a comment (good enough for the pages' commands: no # inside quotes).
    let quote: string | undefined;
    for (let position = 0; position < line.length; position += 1) {
      const character = line[position]!;
      if (quote !== undefined) {
        if (character === quote) quote = undefined;
      } else if (character === "'" || character === '"') {
        quote = character;
      } else if (character === '#' && (position === 0 || /\s/.test(line[position - 1]!))) {
        return line.slice(0, position).trimEnd();
      }
    }
    return line.trimEnd();
  };
  while (index < lines.length) {
    let line = stripComment(lines[index]!);
    index += 1;
    if (line.trim() === '') continue;
    const parts = [line.trim()];
    while (line.endsWith('\\') && index < lines.length) {
      line = stripComment(lines[index]!);
      index += 1;
      parts.push(line.trim());
    }
    let command = parts.join('\n');
    const heredoc = /<<-?\s*'?"?(\w+)'?"?/.exec(command);
    if (heredoc !== null) {
      const body: string[] = [];
      while (index < lines.length && lines[index]!.trim() !== heredoc[1]) body.push(lines[index++]!);
      index += 1;
      command = [command, ...body, heredoc[1]].join('\n');
    } else if (/^(for|while|until)\b/.test(command) && !/\bdone\s*$/.test(command)) {
      const body: string[] = [];
      while (index < lines.length && !/^\s*done\b/.test(lines[index]!)) body.push(stripComment(lines[index++]!));
      body.push(stripComment(lines[index++] ?? 'done').trim());
      command = [command, ...body].join('\n');
    }
    commands.push({ page: block.page, command, blockLine: block.line, section: block.section });
  }
  return commands;
}

/** Every command of every ```sh block of the help pages. */
export function allShellCommands(): ShellCommand[] {
  return helpPages().flatMap((page) =>
    codeBlocks(page)
      .filter((block) => block.language === 'sh')
      .flatMap(shellCommands),
  );
}
