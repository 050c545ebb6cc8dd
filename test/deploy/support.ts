import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The repository root (this file lives in test/deploy). */
export const REPO = resolve(__dirname, '..', '..');
export const DEPLOY = join(REPO, 'deploy');

/** Where a missing tool comes from; the message tells what to install instead of skipping. */
const INSTALL_HINT: Record<string, string> = {
  kubectl: 'kubectl (Debian: apt-get install kubernetes-client)',
  promtool: 'promtool (Debian: apt-get install prometheus)',
  prometheus: 'prometheus (Debian: apt-get install prometheus)',
};

/** Fails, never skips, when a tool the deploy tests need is not on PATH. */
export function requireTool(name: string): string {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const path = r.stdout.trim();
  if (r.status !== 0 || !path) {
    throw new Error(`${name} is not installed: install ${INSTALL_HINT[name] ?? name}, or run bash .ci/install-tools.sh`);
  }
  return path;
}

/** Runs a command and returns its result; throws with its output when it exits non-zero. */
export function run(cmd: string, args: string[], opts: { cwd?: string; allowFail?: boolean } = {}) {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? REPO, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  if (!opts.allowFail && r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  return r;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [k: string]: unknown };
  // Manifests are checked structurally; `any` keeps the checks readable.
  spec?: any;
  data?: Record<string, string>;
  [k: string]: unknown;
}

export function parseYamlStream(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(`YAML error: ${d.errors[0]!.message}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null && typeof o === 'object');
}

/** `kubectl kustomize <dir>`: the objects an overlay would apply. */
export function renderKustomization(dir: string): K8sObject[] {
  requireTool('kubectl');
  return parseYamlStream(run('kubectl', ['kustomize', dir]).stdout);
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Kubernetes label-selector semantics (an empty selector matches everything). */
export function selects(selector: LabelSelector | Record<string, string> | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector) return false;
  const sel: LabelSelector = 'matchLabels' in selector || 'matchExpressions' in selector ? selector : { matchLabels: selector as Record<string, string> };
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = k(e.key);
    const val = labels[e.key];
    if (e.operator === 'In' && !(has && e.values!.includes(val!))) return false;
    if (e.operator === 'NotIn' && has && e.values!.includes(val!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
  function k(key: string) {
    return Object.prototype.hasOwnProperty.call(labels, key);
  }
}

/** The ConfigMap of the settings that apply live, mounted as HOOKS_CONFIG_FILE. */
export const LIVE_SETTINGS_CONFIGMAP = 'hookyard-live-settings';

/**
 * The settings a rendered stack's pods start with: the live file (the
 * ConfigMap's settings.yaml, read as HOOKS_CONFIG_FILE is read) under the
 * environment ConfigMap hookyard-settings, which wins on a clash as it does in a pod.
 */
export function renderedSettings(objs: K8sObject[]): Record<string, string> {
  // Loaded here so the helpers above need no build of the workspace.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseSettingsFile } = require('@hookyard/core') as typeof import('@hookyard/core');
  const env = objs.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('hookyard-settings'))?.data ?? {};
  const live = objs.find((o) => o.kind === 'ConfigMap' && o.metadata.name === LIVE_SETTINGS_CONFIGMAP)?.data?.['settings.yaml'] ?? '';
  return { ...parseSettingsFile(live, LIVE_SETTINGS_CONFIGMAP), ...env };
}
