/**
 * `svc entries list|get|add|delete|import LIST ...`: one list of the tenant from the shell,
 * through the client (its retries, validation and redaction). Writes say what they changed,
 * reads take --format json; whatever the service returns is escaped before it is printed.
 */
import * as path from 'node:path';
import { LIST_NAMES, isListName, type ListEntry, type ListName } from '../../api/types';
import type { ManagementClient } from '../../api/client';
import { checkAddress } from '../../address';
import { descriptionProblem } from '../../description';
import { addressProblem } from '../../entry-file';
import { forTerminal, safeJson } from '../untrusted-text';
import { choice, hasFlag, optionValue, parseArguments, positionals, type ParsedArguments } from './arguments';
import { SvcCommandError, type SvcCommand, type SvcContext } from './command';
import { loadImportFile, type ImportedEntry } from './entry-import-file';
import { withClient } from './service-settings';
import { isoTime, textTable } from './text-table';

const USAGE = `Usage: svc entries <verb> LIST [arguments] [options]

One of the tenant's lists (LIST: ${LIST_NAMES.join(', ')}) through the management API.

  svc entries list LIST [--format text|json]
      every entry: address, created, (blocklist) expires, description
  svc entries get LIST IP [--format text|json]
      one entry; exit 1 when the list does not hold IP
  svc entries add LIST IP [--description TEXT]
      adds IP, or sets the description of the entry already there (says which, and what it was)
  svc entries delete LIST IP
      removes IP; exit 1 when the list does not hold it
  svc entries import LIST FILE [--dry-run] [--prune]
      adds every entry of FILE with the bulk commands (1,000 per call): YAML or JSON as
      SecurityPolicy's entry files (a list of { ip, description? }, at the top level or under
      "entries"), or CSV (ip,description; a header line optional). Entries already there with
      the same description are left alone; a different description is replaced.
      --dry-run  print what would change and change nothing; exit 2 when something would
      --prune    also remove the entries of LIST that FILE does not hold (bulk delete)

A list managed by terraform shows what you change here as drift at its next plan (svc drift);
use this for break-glass changes and scripts, and put lasting changes in the configuration.
Blocklist entries end on their own 30 minutes after they are added.

Configuration: SVC_BASE_URL, SVC_TENANT, SVC_API_KEY (svc --help).
Exit status: 0 done; 1 an error (a bad argument, the service refused or cannot be reached,
get/delete of an absent entry); 2 --dry-run found changes.`;

const VERBS = ['list', 'get', 'add', 'delete', 'import'] as const;
type Verb = (typeof VERBS)[number];

const OPTIONS: Record<Verb, Record<string, { takesValue: boolean; example?: string }>> = {
  list: { '--format': { takesValue: true, example: 'json' } },
  get: { '--format': { takesValue: true, example: 'json' } },
  add: { '--description': { takesValue: true, example: '"scanner, ticket SEC-123"' } },
  delete: {},
  import: { '--dry-run': { takesValue: false }, '--prune': { takesValue: false } },
};

function listArgument(value: string): ListName {
  if (!isListName(value)) throw new SvcCommandError(`LIST ${JSON.stringify(value)} is not a list; give one of ${LIST_NAMES.join(', ')}`);
  return value;
}

function ipArgument(value: string): string {
  const checked = checkAddress(value);
  if (!checked.ok) throw new SvcCommandError(`IP ${JSON.stringify(value)} ${addressProblem(checked.error.reason)}`);
  return checked.canonical;
}

function entryRow(entry: ListEntry, list: ListName): string[] {
  return [forTerminal(String(entry.ip), 60), isoTime(entry.created), ...(list === 'blocklist' ? [isoTime(entry.expires)] : []), forTerminal(String(entry.description ?? ''))];
}

function printEntries(entries: readonly ListEntry[], list: ListName, format: 'text' | 'json', context: SvcContext): void {
  if (format === 'json') {
    context.stdout(`${safeJson(entries)}\n`);
    return;
  }
  if (entries.length === 0) {
    context.stdout(`the ${list} is empty\n`);
    return;
  }
  const headers = ['IP', 'CREATED', ...(list === 'blocklist' ? ['EXPIRES'] : []), 'DESCRIPTION'];
  for (const line of textTable(headers, entries.map((entry) => entryRow(entry, list)))) context.stdout(`${line}\n`);
}

/** What an import would do to a list: the entries to add, to re-describe, to leave, and (with --prune) to remove. */
export interface ImportPlan {
  readonly add: readonly ImportedEntry[];
  readonly redescribe: ReadonlyArray<{ readonly entry: ImportedEntry; readonly was: string }>;
  readonly unchanged: number;
  readonly remove: readonly string[];
}

export function planImport(file: readonly ImportedEntry[], current: readonly ListEntry[], prune: boolean): ImportPlan {
  const onService = new Map(current.map((entry) => [canonicalOf(String(entry.ip)), entry]));
  const add: ImportedEntry[] = [];
  const redescribe: Array<{ entry: ImportedEntry; was: string }> = [];
  let unchanged = 0;
  for (const entry of file) {
    const existing = onService.get(entry.canonical);
    if (existing === undefined) add.push(entry);
    else if (existing.description !== entry.description) redescribe.push({ entry, was: String(existing.description ?? '') });
    else unchanged += 1;
  }
  const inFile = new Set(file.map((entry) => entry.canonical));
  const remove = prune ? [...onService.keys()].filter((ip) => !inFile.has(ip)) : [];
  return { add, redescribe, unchanged, remove };
}

function canonicalOf(ip: string): string {
  const checked = checkAddress(ip);
  return checked.ok ? checked.canonical : ip;
}

async function runImport(client: ManagementClient, list: ListName, file: string, entries: readonly ImportedEntry[], parsed: ParsedArguments, context: SvcContext): Promise<number> {
  const dryRun = hasFlag(parsed, '--dry-run');
  const plan = planImport(entries, await client.listEntries(list), hasFlag(parsed, '--prune'));
  const changes = plan.add.length + plan.redescribe.length + plan.remove.length;
  const lines = [
    ...plan.add.map((entry) => `  + ${forTerminal(entry.canonical, 60)}  ${forTerminal(entry.description)}`),
    ...plan.redescribe.map(({ entry, was }) => `  ~ ${forTerminal(entry.canonical, 60)}  ${forTerminal(was)} -> ${forTerminal(entry.description)}`),
    ...plan.remove.map((ip) => `  - ${forTerminal(ip, 60)}`),
  ];
  const summary = `${plan.add.length} to add, ${plan.redescribe.length} to re-describe, ${plan.remove.length} to remove, ${plan.unchanged} unchanged`;
  context.stdout(`${entries.length} entries in ${file} for the ${list}: ${summary}\n`);
  for (const line of lines) context.stdout(`${line}\n`);
  if (dryRun || changes === 0) {
    if (dryRun) context.stdout(changes === 0 ? 'dry run: nothing would change\n' : 'dry run: nothing changed\n');
    return dryRun && changes > 0 ? 2 : 0;
  }
  const toWrite = [...plan.add, ...plan.redescribe.map(({ entry }) => entry)].map((entry) => ({ ip: entry.canonical, description: entry.description }));
  const progress = (what: string) => (step: { chunk: number; chunks: number; done: number; total: number }) => {
    if (step.chunks > 1) context.stderr(`${what}: ${step.done}/${step.total} (call ${step.chunk} of ${step.chunks})\n`);
  };
  if (toWrite.length > 0) await client.bulkAddEntries(list, toWrite, { onProgress: progress('added') });
  if (plan.remove.length > 0) await client.bulkDeleteEntries(list, plan.remove, { onProgress: progress('removed') });
  context.stdout(`done: ${plan.add.length} added, ${plan.redescribe.length} re-described, ${plan.remove.length} removed on the ${list}\n`);
  return 0;
}

async function run(argv: readonly string[], context: SvcContext): Promise<number> {
  const [verbText, ...rest] = argv;
  if (verbText === undefined) throw new SvcCommandError(`say what to do: svc entries ${VERBS.join('|')} LIST ... (svc entries --help)`);
  if (!(VERBS as readonly string[]).includes(verbText)) throw new SvcCommandError(`unknown verb ${JSON.stringify(verbText)}; the verbs are ${VERBS.join(', ')}`);
  const verb = verbText as Verb;
  const parsed = parseArguments(rest, OPTIONS[verb], `entries ${verb}`);
  const format = verb === 'list' || verb === 'get' ? choice(parsed, '--format', ['text', 'json'] as const, 'text') : 'text';
  switch (verb) {
    case 'list': {
      const [listText] = positionals(parsed, ['LIST'], 'entries list');
      const list = listArgument(listText!);
      return withClient(context, async (client) => {
        printEntries(await client.listEntries(list), list, format, context);
        return 0;
      });
    }
    case 'get': {
      const [listText, ipText] = positionals(parsed, ['LIST', 'IP'], 'entries get');
      const list = listArgument(listText!);
      const ip = ipArgument(ipText!);
      return withClient(context, async (client) => {
        const entry = await client.getEntry(list, ip);
        if (entry === null) throw new SvcCommandError(`the ${list} holds no entry for ${ip}`);
        if (format === 'json') context.stdout(`${safeJson(entry)}\n`);
        else printEntries([entry], list, 'text', context);
        return 0;
      });
    }
    case 'add': {
      const [listText, ipText] = positionals(parsed, ['LIST', 'IP'], 'entries add');
      const list = listArgument(listText!);
      const ip = ipArgument(ipText!);
      const description = optionValue(parsed, '--description') ?? '';
      const problem = descriptionProblem(description);
      if (problem !== undefined) throw new SvcCommandError(`--description ${problem}`);
      return withClient(context, async (client) => {
        const before = await client.getEntry(list, ip);
        if (before !== null && before.description === description) {
          context.stdout(`the ${list} already holds ${ip} with that description; nothing changed\n`);
          return 0;
        }
        await client.addEntry(list, { ip, description });
        context.stdout(
          before === null
            ? `added ${ip} to the ${list}\n`
            : `${ip} on the ${list}: description changed from "${forTerminal(String(before.description ?? ''))}" to "${forTerminal(description)}"\n`,
        );
        return 0;
      });
    }
    case 'delete': {
      const [listText, ipText] = positionals(parsed, ['LIST', 'IP'], 'entries delete');
      const list = listArgument(listText!);
      const ip = ipArgument(ipText!);
      return withClient(context, async (client) => {
        const before = await client.getEntry(list, ip);
        if (before === null) throw new SvcCommandError(`the ${list} holds no entry for ${ip}; nothing removed`);
        await client.deleteEntry(list, ip);
        context.stdout(`removed ${ip} ("${forTerminal(String(before.description ?? ''))}") from the ${list}\n`);
        return 0;
      });
    }
    case 'import': {
      const [listText, file] = positionals(parsed, ['LIST', 'FILE'], 'entries import');
      const list = listArgument(listText!);
      // The file is read and checked before the service is asked anything.
      const entries = loadImportFile(path.resolve(context.cwd, file!));
      return withClient(context, (client) => runImport(client, list, file!, entries, parsed, context));
    }
  }
}

export const ENTRIES_COMMAND: SvcCommand = {
  name: 'entries',
  summary: 'list, get, add, delete or import entries of the blacklist, blocklist or whitelist',
  usage: USAGE,
  run,
};
