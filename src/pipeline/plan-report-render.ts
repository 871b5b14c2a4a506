/**
 * A PlanReport for people: Markdown for a pull-request comment (a summary line first, tables,
 * long tables collapsed under <details> with their counts, never over the limit: what does not
 * fit is counted, removals go in before re-descriptions and additions, so a delete is the last
 * thing left out), text for a terminal or a CI log, JSON with everything. Every text that came
 * from the plan is escaped for where it goes (untrusted-text.ts).
 */
import type { EntryChange, EntryChangeKind, Finding, ListChanges, PlanReport, PolicyChanges, SsoChange, SsoSide } from './plan-report';
import { forMarkdown, forTerminal, safeJson } from './untrusted-text';

/** GitHub refuses comments over 65,536 characters; the rest is room for a CI's own header. */
export const MARKDOWN_LIMIT = 60_000;
/** Tables with more rows than this are collapsed. */
const COLLAPSE_ABOVE = 10;
const KIND_ORDER: readonly EntryChangeKind[] = ['removed', 're-described', 'added'];
const KIND_MARK: Record<EntryChangeKind, string> = { removed: '➖ removed', 're-described': '✏️ re-described', added: '➕ added' };

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function summaryLine(report: PlanReport): string {
  const { totals } = report;
  const policy = [
    totals.added > 0 ? plural(totals.added, 'address', 'addresses') + ' added' : '',
    totals.removed > 0 ? `${totals.removed} removed` : '',
    totals.redescribed > 0 ? `${totals.redescribed} re-described` : '',
    totals.sso > 0 ? plural(totals.sso, 'SSO change') : '',
  ].filter((part) => part !== '');
  const parts = [
    policy.length === 0 ? 'no change to the security policy' : policy.join(', '),
    ...(totals.errors > 0 ? [plural(totals.errors, 'error')] : []),
    ...(totals.warnings > 0 ? [plural(totals.warnings, 'warning')] : []),
    ...(totals.drift > 0 ? [`drift: ${plural(totals.drift, 'change')} outside terraform`] : []),
    ...(totals.otherResources > 0 ? [`${plural(totals.otherResources, 'other resource')} changed`] : []),
  ];
  return parts.join(' · ');
}

function listTitle(list: ListChanges): string {
  const counts = KIND_ORDER.map((kind) => [kind, list.entries.filter((entry) => entry.kind === kind).length] as const)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${count} ${kind}`);
  return `${list.tenant} · ${list.list}: ${counts.join(', ') || 'no entry changes'}`;
}

function findingText(finding: Finding, escape: (text: string, max?: number) => string): string {
  return `${finding.severity}: ${escape(finding.summary, 200)}${finding.detail === '' ? '' : ` (${escape(finding.detail.replace(/\s+/g, ' '), 400)})`}`;
}

function ssoSideText(side: SsoSide | null): string {
  if (side === null) return 'off';
  const flag = (value: boolean | 'unknown') => (value === 'unknown' ? '(known after apply)' : String(value));
  return `enabled ${flag(side.enabled)}, required ${flag(side.required)}, metadata ${side.saml_metadata_url === 'unknown' ? '(known after apply)' : (side.saml_metadata_url ?? 'none')}`;
}

// ---- Markdown ----------------------------------------------------------------------------------

interface Row {
  readonly priority: number;
  readonly text: string;
  include: boolean;
}

function entryRow(entry: EntryChange): string {
  const description =
    entry.kind === 'added'
      ? forMarkdown(entry.after ?? '')
      : entry.kind === 'removed'
        ? `was: ${forMarkdown(entry.before ?? '')}`
        : `${forMarkdown(entry.before ?? '')} → ${forMarkdown(entry.after ?? '')}`;
  const findings = entry.findings.map((finding) => `${finding.severity === 'error' ? '⛔' : '⚠️'} ${findingText(finding, forMarkdown)}`).join('<br>');
  return `| ${KIND_MARK[entry.kind]} | ${forMarkdown(entry.ip, 60)} | ${description} | ${forMarkdown(entry.address, 120)} | ${findings} |`;
}

function ssoRow(change: SsoChange): string {
  return (
    `| ${change.owner.kind} ${forMarkdown(change.owner.name, 80)} | ${change.action} | ${forMarkdown(ssoSideText(change.before), 300)} | ${forMarkdown(ssoSideText(change.after), 300)} | ` +
    `${change.consequences.map((text) => forMarkdown(text, 400)).join('<br>')}${change.findings.map((finding) => `<br>${finding.severity === 'error' ? '⛔' : '⚠️'} ${findingText(finding, forMarkdown)}`).join('')} |`
  );
}

interface Section {
  readonly heading: string;
  readonly intro: string[];
  readonly tables: Array<{ readonly title: string; readonly header: string[]; readonly rows: Row[] }>;
}

function policySections(changes: PolicyChanges, headingPrefix: string, priorityBase: number): Section[] {
  const sections: Section[] = [];
  if (changes.sso.length > 0) {
    sections.push({
      heading: `${headingPrefix}Single sign-on`,
      intro: [],
      tables: [
        {
          title: plural(changes.sso.length, 'SSO change'),
          header: ['| Owner | Action | Before | After | Consequence |', '|---|---|---|---|---|'],
          rows: changes.sso.map((change) => ({ priority: priorityBase, text: ssoRow(change), include: true })),
        },
      ],
    });
  }
  for (const list of changes.lists) {
    const intro = [
      ...list.notes.map((note) => `> ${forMarkdown(note, 400)}`),
      ...list.findings.map((finding) => `- ${finding.severity === 'error' ? '⛔' : '⚠️'} ${forMarkdown(finding.address ?? '', 120)}: ${findingText(finding, forMarkdown)}`),
    ];
    const header = ['| Change | Address | Description | Resource | Guardrails |', '|---|---|---|---|---|'];
    const rowOf = (entry: EntryChange): Row => ({ priority: priorityBase + 1 + KIND_ORDER.indexOf(entry.kind), text: entryRow(entry), include: true });
    // A short list reads best as one table; a long one as a table per kind, each collapsed with its count.
    if (list.entries.length <= COLLAPSE_ABOVE) {
      sections.push({ heading: `${headingPrefix}${forMarkdown(listTitle(list), 200)}`, intro, tables: list.entries.length === 0 ? [] : [{ title: '', header, rows: list.entries.map(rowOf) }] });
      continue;
    }
    const tables = KIND_ORDER.map((kind) => {
      const entries = list.entries.filter((entry) => entry.kind === kind);
      return {
        title: `${KIND_MARK[kind]}: ${entries.length} in ${forMarkdown(list.tenant, 80)} · ${list.list}`,
        header,
        rows: entries.map(rowOf),
      };
    }).filter((table) => table.rows.length > 0);
    sections.push({ heading: `${headingPrefix}${forMarkdown(listTitle(list), 200)}`, intro, tables });
  }
  if (changes.otherResources.length > 0) {
    sections.push({
      heading: `${headingPrefix}Other resources (counted only)`,
      intro: [],
      tables: [
        {
          title: 'other resources',
          header: ['| Provider | Create | Update | Delete | Replace |', '|---|---|---|---|---|'],
          rows: changes.otherResources.map((count) => ({
            priority: priorityBase,
            text: `| ${forMarkdown(count.provider, 120)} | ${count.create} | ${count.update} | ${count.delete} | ${count.replace} |`,
            include: true,
          })),
        },
      ],
    });
  }
  return sections;
}

/** The report as Markdown of at most `limit` characters. */
export function renderMarkdown(report: PlanReport, limit = MARKDOWN_LIMIT): string {
  const head: string[] = [`**svc plan:** ${forMarkdown(summaryLine(report), 1000)}`, ''];
  const warnings = report.changes.sso.flatMap((change) =>
    change.consequences.map((text) => `> ⚠️ **${change.owner.kind} ${forMarkdown(change.owner.name, 80)}:** ${forMarkdown(text, 400)}`),
  );
  if (warnings.length > 0) head.push(...warnings, '');
  if (report.findings.length > 0) {
    head.push('**Findings** (from terraform plan)', '', ...report.findings.map((finding) => `- ${finding.severity === 'error' ? '⛔' : '⚠️'} ${finding.address === undefined ? '' : `${forMarkdown(finding.address, 120)}: `}${findingText(finding, forMarkdown)}`), '');
  }
  const sections = [
    ...policySections(report.changes, '### ', 0),
    ...policySections(report.drift, '### Drift: ', 10).map((section, index) =>
      index === 0 ? { ...section, intro: ['_Changed outside terraform since the last apply (refresh found it); the plan above puts the configuration back._', ...section.intro] } : section,
    ),
  ];
  // Room for the collapsible wrappers, headings and the notes of what was left out.
  const frame = sections.reduce((sum, section) => sum + section.heading.length + 4 + section.intro.join('\n').length + section.tables.reduce((tableSum, table) => tableSum + table.title.length + table.header.join('\n').length + 120, 0), 0);
  let budget = limit - head.join('\n').length - frame - 400;
  const rows = sections.flatMap((section) => section.tables.flatMap((table) => table.rows)).sort((a, b) => a.priority - b.priority);
  for (const row of rows) {
    row.include = budget >= row.text.length + 1;
    if (row.include) budget -= row.text.length + 1;
  }
  const out = [...head];
  let omitted = 0;
  for (const section of sections) {
    out.push(section.heading, '');
    if (section.intro.length > 0) out.push(...section.intro, '');
    for (const table of section.tables) {
      const shown = table.rows.filter((row) => row.include);
      const left = table.rows.length - shown.length;
      omitted += left;
      const body = [...table.header, ...shown.map((row) => row.text)];
      const note = left > 0 ? [`_${left} more not shown here (the comment's size limit); \`svc plan-report --format json\` lists every one._`] : [];
      if (shown.length === 0) out.push(`${table.title || 'entries'}: none shown`, ...note, '');
      else if (table.rows.length > COLLAPSE_ABOVE) out.push(`<details><summary>${table.title}</summary>`, '', ...body, '', ...note, '</details>', '');
      else out.push(...(table.title === '' ? [] : [`**${table.title}**`, '']), ...body, '', ...note);
    }
  }
  if (omitted > 0) out.push(`_${omitted} rows in all left out to stay under ${limit} characters._`);
  const text = `${out.join('\n').trimEnd()}\n`;
  // The frame estimate is generous; should it not be, cut at a line and say so rather than exceed the limit.
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit - 200);
  return `${cut.slice(0, cut.lastIndexOf('\n'))}\n\n_The report was cut at ${limit} characters; \`svc plan-report --format json\` has all of it._\n`;
}

// ---- text --------------------------------------------------------------------------------------

/** Lines for a terminal: the SSO changes, each list's entry changes and the other resources counted. */
export function policyText(changes: PolicyChanges, indent: string): string[] {
  const lines: string[] = [];
  for (const change of changes.sso) {
    lines.push(`${indent}SSO of ${change.owner.kind} ${forTerminal(change.owner.name, 80)} (${forTerminal(change.address, 120)}): ${change.action}`);
    lines.push(`${indent}  before: ${forTerminal(ssoSideText(change.before), 300)}`, `${indent}  after:  ${forTerminal(ssoSideText(change.after), 300)}`);
    for (const consequence of change.consequences) lines.push(`${indent}  ! ${forTerminal(consequence, 400)}`);
    for (const finding of change.findings) lines.push(`${indent}  ${findingText(finding, forTerminal)}`);
  }
  for (const list of changes.lists) {
    lines.push(`${indent}${forTerminal(listTitle(list), 200)}`);
    for (const note of list.notes) lines.push(`${indent}  note: ${forTerminal(note, 400)}`);
    for (const finding of list.findings) lines.push(`${indent}  ${forTerminal(finding.address ?? '', 120)}: ${findingText(finding, forTerminal)}`);
    for (const entry of list.entries) {
      const mark = entry.kind === 'added' ? '+' : entry.kind === 'removed' ? '-' : '~';
      const description =
        entry.kind === 'added' ? `"${forTerminal(entry.after ?? '')}"` : entry.kind === 'removed' ? `was "${forTerminal(entry.before ?? '')}"` : `"${forTerminal(entry.before ?? '')}" -> "${forTerminal(entry.after ?? '')}"`;
      lines.push(`${indent}  ${mark} ${forTerminal(entry.ip, 60)}  ${description}  (${forTerminal(entry.address, 120)})`);
      for (const finding of entry.findings) lines.push(`${indent}      ${findingText(finding, forTerminal)}`);
    }
  }
  for (const count of changes.otherResources) {
    lines.push(`${indent}${forTerminal(count.provider, 120)}: ${count.create} to create, ${count.update} to update, ${count.delete} to delete, ${count.replace} to replace`);
  }
  return lines;
}

export function renderText(report: PlanReport): string {
  const lines = [`svc plan: ${forTerminal(summaryLine(report), 1000)}`];
  for (const finding of report.findings) lines.push(`  ${finding.address === undefined ? '' : `${forTerminal(finding.address, 120)}: `}${findingText(finding, forTerminal)}`);
  const changes = policyText(report.changes, '  ');
  if (changes.length > 0) lines.push('', 'changes:', ...changes);
  const drift = policyText(report.drift, '  ');
  if (drift.length > 0) lines.push('', 'drift (changed outside terraform since the last apply):', ...drift);
  return `${lines.join('\n')}\n`;
}

export function renderJson(report: PlanReport): string {
  return `${safeJson({ summary: summaryLine(report), ...report })}\n`;
}
