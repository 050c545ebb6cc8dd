import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEPLOY } from './support';

/** PromQL words that are not metric names. */
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression reads: identifiers outside label
 * matchers, strings, ranges and grouping clauses that are not function calls,
 * aggregations or keywords. Small on purpose: enough for the queries we write.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const out = new Set<string>();
  for (const m of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const word = m[0];
    const rest = stripped.slice(m.index + word.length);
    if (/^\s*\(/.test(rest)) continue; // a function or an aggregation
    if (KEYWORDS.has(word.toLowerCase())) continue;
    if (/^\d/.test(word)) continue;
    out.add(word);
  }
  return [...out];
}

export interface DashboardQuery {
  panel: string;
  expr: string;
}

export function dashboard(): any {
  return JSON.parse(readFileSync(join(DEPLOY, 'grafana', 'hookyard.json'), 'utf8'));
}

/** Every query of every panel, rows' nested panels included. */
export function dashboardQueries(): DashboardQuery[] {
  const out: DashboardQuery[] = [];
  const walk = (panels: any[]) => {
    for (const p of panels ?? []) {
      for (const t of p.targets ?? []) if (t.expr) out.push({ panel: p.title, expr: t.expr });
      walk(p.panels);
    }
  };
  walk(dashboard().panels);
  return out;
}

/** Every alerting and recording rule expression of deploy/prometheus/rules.yaml. */
export function ruleExprs(): { rule: string; expr: string }[] {
  const doc = parse(readFileSync(join(DEPLOY, 'prometheus', 'rules.yaml'), 'utf8')) as {
    groups: { rules: { alert?: string; record?: string; expr: string }[] }[];
  };
  return doc.groups.flatMap((g) => g.rules.map((r) => ({ rule: (r.alert ?? r.record)!, expr: r.expr })));
}
