import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS_REGISTRY, SETTINGS_VARIABLES, resolveSettings, type SettingVariable } from '@hookyard/core';
import { onPublicSurface } from '../../services/ingress/src/http/surface';
import { DEPLOY, K8sObject, LIVE_SETTINGS_CONFIGMAP, renderKustomization, selects } from './support';

/**
 * Renders every kustomization in deploy/k8s with `kubectl kustomize` and checks
 * what a cluster would get: settings names, probes and ports, secrets, roles,
 * and that autoscalers, budgets and policies point at what exists.
 */

const ROLES = ['ingress', 'scheduler', 'executor'] as const;
const HOOKYARD = 'app.kubernetes.io/name';
const COMPONENT = 'app.kubernetes.io/component';
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|_URL$|_KEY$/;
/** Literal values that look like credentials: a URL with a password, a role:token pair, a long random-looking string. */
const CREDENTIAL_LITERAL = [/:\/\/[^/\s@]*:[^/\s@]+@/, /\b(admin|operator|reader):\S{16,}/, /\b[A-Za-z0-9+/_-]{32,}={0,2}\b/];

// Any shape: manifests are walked structurally.
type Container = any;

const rendered: Record<string, K8sObject[]> = {};
function render(name: string): K8sObject[] {
  const dir = name === 'base' ? join(DEPLOY, 'k8s', 'base') : join(DEPLOY, 'k8s', 'overlays', name);
  return (rendered[name] ??= renderKustomization(dir));
}
const of = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind);
const hookyardDeployments = (objs: K8sObject[]) => of(objs, 'Deployment').filter((d) => d.metadata.labels?.[HOOKYARD] === 'hookyard');
const podLabels = (d: K8sObject): Record<string, string> => d.spec.template.metadata.labels ?? {};
const containersOf = (d: K8sObject): Container[] => d.spec.template.spec.containers;

function settingsConfigMap(objs: K8sObject[], d: K8sObject): Record<string, string> {
  const data: Record<string, string> = {};
  for (const c of containersOf(d)) {
    for (const ef of c.envFrom ?? []) {
      const name = ef.configMapRef?.name;
      expect(name).toBeDefined();
      const cm = of(objs, 'ConfigMap').find((m) => m.metadata.name === name);
      if (!cm) throw new Error(`${d.metadata.name}: envFrom names ConfigMap ${name}, which the overlay does not render`);
      Object.assign(data, cm.data);
    }
  }
  return data;
}

/** Resolves a probe or Service port (a number or a container port name) to a container port, or undefined. */
/** A Deployment's settings as its pod reads them at start: the ConfigMap's, then the container's literal env over them. */
function podSettings(objs: K8sObject[], d: K8sObject): Record<string, string> {
  const env = settingsConfigMap(objs, d);
  for (const c of containersOf(d)) for (const e of c.env ?? []) if (typeof e.value === 'string') env[e.name] = e.value;
  return env;
}

function containerPort(d: K8sObject, port: number | string): number | undefined {
  for (const c of containersOf(d)) {
    for (const p of c.ports ?? []) {
      if (p.name === port || p.containerPort === port) return p.containerPort;
    }
  }
  return undefined;
}

function probes(c: Container): [string, any][] {
  return (['readinessProbe', 'livenessProbe', 'startupProbe'] as const).filter((k) => c[k]).map((k) => [k, c[k]]);
}

function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => strings(x, out));
  return out;
}

describe.each(['base', 'dev', 'prod'])('kustomize %s', (overlay) => {
  let objs: K8sObject[];
  beforeAll(() => {
    objs = render(overlay);
  });

  test('renders one Deployment per role running `serve --role <role>`', () => {
    const deps = hookyardDeployments(objs);
    expect(deps.map((d) => d.metadata.labels?.[COMPONENT]).sort()).toEqual([...ROLES].sort());
    for (const d of deps) {
      const role = d.metadata.labels![COMPONENT]!;
      expect(selects(d.spec.selector, podLabels(d))).toBe(true);
      const [c, ...rest] = containersOf(d);
      expect(rest).toHaveLength(0);
      expect(c.args).toEqual(['serve', '--role', role]);
      expect(c.command).toBeUndefined(); // the image's ENTRYPOINT is the CLI
    }
  });

  test('every environment variable and ConfigMap key is a Hookyard setting', () => {
    const known = new Set(SETTINGS_VARIABLES);
    for (const d of hookyardDeployments(objs)) {
      const names = [...containersOf(d).flatMap((c: Container) => (c.env ?? []).map((e: any) => e.name)), ...Object.keys(settingsConfigMap(objs, d))];
      expect(names.length).toBeGreaterThan(5);
      const unknown = names.filter((n) => !known.has(n));
      expect({ deployment: d.metadata.name, unknown }).toEqual({ deployment: d.metadata.name, unknown: [] });
    }
  });

  test('every role mounts the live settings ConfigMap as HOOKS_CONFIG_FILE; it holds only settings a reload applies, none overridden by the environment', () => {
    const live = of(objs, 'ConfigMap').find((m) => m.metadata.name === LIVE_SETTINGS_CONFIGMAP);
    expect(live).toBeDefined();
    const text = live!.data!['settings.yaml']!;
    for (const d of hookyardDeployments(objs)) {
      const env = settingsConfigMap(objs, d);
      const file = env.HOOKS_CONFIG_FILE!;
      const c = containersOf(d)[0];
      const mount = (c.volumeMounts ?? []).find((m: any) => file.startsWith(`${m.mountPath}/`));
      expect({ deployment: d.metadata.name, mounted: mount?.readOnly }).toEqual({ deployment: d.metadata.name, mounted: true });
      const volume = d.spec.template.spec.volumes.find((v: any) => v.name === mount.name);
      expect(volume.configMap.name).toBe(LIVE_SETTINGS_CONFIGMAP);
      expect(file.slice(mount.mountPath.length + 1)).toBe('settings.yaml');
      // Read as a pod reads it: the environment plus this file, validated whole.
      const resolved = resolveSettings({ ...env, HOOKS_CONFIG_FILE: file }, () => text);
      const fromFile = Object.entries(resolved.sources)
        .filter(([, s]) => s === 'file')
        .map(([v]) => v);
      expect(fromFile.length).toBeGreaterThan(3);
      expect({ deployment: d.metadata.name, notLive: fromFile.filter((v) => !SETTINGS_REGISTRY[v as SettingVariable].live) }).toEqual({
        deployment: d.metadata.name,
        notLive: [],
      });
      expect({ deployment: d.metadata.name, overridden: resolved.overridden }).toEqual({ deployment: d.metadata.name, overridden: [] });
    }
  });

  test('pods bind 0.0.0.0 on the container port, and probes hit /readyz and /healthz on it', () => {
    for (const d of of(objs, 'Deployment')) {
      for (const c of containersOf(d)) {
        for (const [kind, p] of probes(c)) {
          const port = p.httpGet?.port ?? p.tcpSocket?.port;
          if (p.httpGet) expect(['/healthz', '/readyz']).toContain(p.httpGet.path);
          if (!p.exec)
            expect({ probe: `${d.metadata.name} ${kind}`, port: containerPort(d, port) }).toEqual({
              probe: `${d.metadata.name} ${kind}`,
              port: expect.any(Number),
            });
        }
      }
    }
    for (const d of hookyardDeployments(objs)) {
      const settings = podSettings(objs, d);
      const c = containersOf(d)[0];
      expect(settings.HOOKS_HTTP_HOST).toBe('0.0.0.0');
      const port = Number(settings.HOOKS_HTTP_PORT ?? 8080);
      // The ingress also listens on HOOKS_ADMIN_PORT (port `admin`); the other roles on one port.
      const admin = settings.HOOKS_ADMIN_PORT === undefined ? [] : [Number(settings.HOOKS_ADMIN_PORT)];
      expect({ deployment: d.metadata.name, ports: c.ports.map((p: any) => p.containerPort) }).toEqual({
        deployment: d.metadata.name,
        ports: [port, ...admin],
      });
      expect(c.readinessProbe.httpGet.path).toBe('/readyz');
      expect(c.livenessProbe.httpGet.path).toBe('/healthz');
      expect(containerPort(d, c.readinessProbe.httpGet.port)).toBe(port);
      expect(containerPort(d, c.livenessProbe.httpGet.port)).toBe(port);
    }
  });

  test('the ingress splits its ports with HOOKS_ADMIN_PORT: the public Service reaches only the door, the admin Service the API and /metrics', () => {
    const deps = hookyardDeployments(objs);
    const ingress = deps.find((d) => d.metadata.labels![COMPONENT] === 'ingress')!;
    // Read as the pod reads it: a bad or equal port would refuse to start.
    const s = resolveSettings(podSettings(objs, ingress), () => '').settings;
    expect(s.adminPort).toBeDefined();
    expect(s.adminPort).not.toBe(s.httpPort);
    expect(containerPort(ingress, 'http')).toBe(s.httpPort);
    expect(containerPort(ingress, 'admin')).toBe(s.adminPort);
    // Only the ingress splits (the setting does nothing for the other roles), so only it sets it.
    for (const d of deps.filter((x) => x !== ingress))
      expect({ deployment: d.metadata.name, admin: podSettings(objs, d).HOOKS_ADMIN_PORT }).toEqual({ deployment: d.metadata.name, admin: undefined });
    const services = of(objs, 'Service').filter((x) => selects(x.spec.selector, podLabels(ingress)));
    const targets = (name: string) =>
      services.find((x) => x.metadata.name === name)!.spec.ports.map((p: any) => containerPort(ingress, p.targetPort ?? p.port));
    expect(services.map((x) => x.metadata.name).sort()).toEqual(['hookyard-ingress', 'hookyard-ingress-admin']);
    expect(targets('hookyard-ingress')).toEqual([s.httpPort]);
    expect(targets('hookyard-ingress-admin')).toEqual([s.adminPort]);
    // What each listener answers (services/ingress/src/http/surface.ts): the door and probes on the public one, not the API or /metrics.
    for (const path of ['/universal_webhook/t', '/readyz', '/healthz']) expect(onPublicSurface(path)).toBe(true);
    for (const path of ['/metrics', '/api/hooks', '/openapi.json', '/console']) expect(onPublicSurface(path)).toBe(false);
    const c = containersOf(ingress)[0];
    for (const [, p] of probes(c)) expect(onPublicSurface(p.httpGet.path) && containerPort(ingress, p.httpGet.port) === s.httpPort).toBe(true);
  });

  test('every Service selects a Deployment and targets one of its container ports', () => {
    const services = of(objs, 'Service');
    for (const r of ROLES) expect(services.map((s) => s.metadata.name)).toContain(`hookyard-${r}`);
    for (const s of services) {
      const targets = of(objs, 'Deployment').filter((d) => selects(s.spec.selector, podLabels(d)));
      expect({ service: s.metadata.name, targets: targets.length }).toEqual({ service: s.metadata.name, targets: 1 });
      for (const p of s.spec.ports) {
        expect({ service: s.metadata.name, port: containerPort(targets[0]!, p.targetPort ?? p.port) }).toEqual({
          service: s.metadata.name,
          port: expect.any(Number),
        });
      }
    }
  });

  test('resources, non-root, read-only root file system', () => {
    for (const d of of(objs, 'Deployment')) {
      const pod = d.spec.template.spec;
      for (const c of containersOf(d)) {
        const where = `${d.metadata.name}/${c.name}`;
        for (const k of ['requests', 'limits'])
          for (const r of ['cpu', 'memory']) expect([where, k, r, c.resources?.[k]?.[r]]).toEqual([where, k, r, expect.anything()]);
        expect([where, c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot]).toEqual([where, true]);
        expect([where, c.securityContext?.readOnlyRootFilesystem]).toEqual([where, true]);
        expect([where, c.securityContext?.allowPrivilegeEscalation]).toEqual([where, false]);
      }
    }
  });

  test('termination grace outlasts HOOKS_RUN_SHUTDOWN_GRACE_SECONDS and any preStop pause', () => {
    for (const d of hookyardDeployments(objs)) {
      const shutdown = Number(settingsConfigMap(objs, d).HOOKS_RUN_SHUTDOWN_GRACE_SECONDS ?? 20);
      const cmd: string[] = containersOf(d)[0].lifecycle?.preStop?.exec?.command ?? [];
      const pause = cmd[0] === 'sleep' ? Number(cmd[1]) : 0;
      expect(d.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(shutdown + pause);
    }
  });

  test('secret-looking variables come from secretKeyRef, never literal values', () => {
    for (const d of of(objs, 'Deployment')) {
      for (const c of containersOf(d)) {
        for (const e of c.env ?? []) {
          if (SECRET_NAME.test(e.name)) {
            expect({ env: e.name, value: e.value, ref: e.valueFrom?.secretKeyRef?.key }).toEqual({ env: e.name, value: undefined, ref: expect.any(String) });
          }
        }
      }
      for (const key of Object.keys(hookyardDeployments(objs).includes(d) ? settingsConfigMap(objs, d) : {})) {
        expect({ configMapKey: key, secretLooking: SECRET_NAME.test(key) }).toEqual({ configMapKey: key, secretLooking: false });
      }
    }
    // The ingress needs the API tokens; every role needs Redis and NATS.
    for (const d of hookyardDeployments(objs)) {
      const env = containersOf(d)[0].env.map((e: any) => e.name);
      expect(env).toEqual(expect.arrayContaining(['HOOKS_REDIS_URL', 'HOOKS_NATS_URL']));
      if (d.metadata.labels![COMPONENT] === 'ingress') expect(env).toContain('HOOKS_API_TOKENS');
    }
  });

  if (overlay !== 'dev') {
    test('no Secret and no credential-looking literal is rendered', () => {
      expect(of(objs, 'Secret')).toEqual([]);
      const literals = objs.flatMap((o) => strings(o));
      for (const re of CREDENTIAL_LITERAL) expect(literals.filter((s) => re.test(s))).toEqual([]);
    });

    test('the Secret the operator creates is documented with every key the pods read', () => {
      const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8');
      const refs = hookyardDeployments(objs).flatMap((d) =>
        containersOf(d)[0]
          .env.map((e: any) => e.valueFrom?.secretKeyRef)
          .filter(Boolean),
      );
      expect(refs.length).toBeGreaterThan(0);
      for (const r of refs) {
        expect(readme).toContain(r.name);
        expect(readme).toContain(`${r.key}=`);
      }
    });
  } else {
    test('dev: every secretKeyRef resolves to a key of a rendered, dev-only Secret', () => {
      for (const d of of(objs, 'Deployment')) {
        for (const e of containersOf(d).flatMap((c: Container) => c.env ?? [])) {
          const ref = e.valueFrom?.secretKeyRef;
          if (!ref) continue;
          const secret = of(objs, 'Secret').find((s) => s.metadata.name === ref.name);
          expect(secret?.metadata.labels?.['hookyard.dev/dev-only']).toBe('true');
          expect(Object.keys(secret!.data ?? {})).toContain(ref.key);
        }
      }
      const tokens = Buffer.from(of(objs, 'Secret')[0]!.data!['api-tokens']!, 'base64').toString();
      expect(tokens).toMatch(/dev-only/);
    });

    test('dev: single-replica NATS with JetStream and Redis with appendonly, each on a PVC', () => {
      const pvcs = of(objs, 'PersistentVolumeClaim').map((p) => p.metadata.name);
      for (const [name, flag] of [
        ['nats', '--jetstream'],
        ['redis', '--appendonly yes'],
      ] as const) {
        const d = of(objs, 'Deployment').find((x) => x.metadata.name === name);
        expect(d?.spec.replicas).toBe(1);
        expect(containersOf(d!)[0].args.join(' ')).toContain(flag);
        const claims = d!.spec.template.spec.volumes.map((v: any) => v.persistentVolumeClaim?.claimName).filter(Boolean);
        expect(claims).toHaveLength(1);
        expect(pvcs).toContain(claims[0]);
      }
      // The URLs the pods get point at those Services.
      const secret = of(objs, 'Secret')[0]!;
      const url = (k: string) => new URL(Buffer.from(secret.data![k]!, 'base64').toString());
      const svc = (n: string) => of(objs, 'Service').find((s) => s.metadata.name === n)!;
      expect(url('redis-url').hostname).toBe('redis');
      expect(Number(url('redis-url').port)).toBe(svc('redis').spec.ports[0].port);
      expect(url('nats-url').hostname).toBe('nats');
      expect(Number(url('nats-url').port)).toBe(svc('nats').spec.ports[0].port);
    });
  }

  test('autoscalers and disruption budgets target existing Deployments', () => {
    const deps = of(objs, 'Deployment');
    const hpas = of(objs, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['hookyard-executor', 'hookyard-ingress']);
    for (const h of hpas) {
      expect(h.spec.scaleTargetRef.kind).toBe('Deployment');
      expect(deps.map((d) => d.metadata.name)).toContain(h.spec.scaleTargetRef.name);
      expect(h.spec.minReplicas).toBeLessThanOrEqual(h.spec.maxReplicas);
    }
    const pdbs = of(objs, 'PodDisruptionBudget');
    for (const r of ROLES) {
      const d = deps.find((x) => x.metadata.name === `hookyard-${r}`)!;
      const budgets = pdbs.filter((p) => selects(p.spec.selector, podLabels(d)));
      expect({ role: r, budgets: budgets.length }).toEqual({ role: r, budgets: 1 });
    }
    for (const p of pdbs) expect(deps.filter((d) => selects(p.spec.selector, podLabels(d)))).toHaveLength(1);
  });

  test('network policies open only the ingress port to everyone; other roles only to Prometheus', () => {
    const policies = of(objs, 'NetworkPolicy');
    for (const d of hookyardDeployments(objs)) {
      const role = d.metadata.labels![COMPONENT];
      const mine = policies.filter((p) => selects(p.spec.podSelector, podLabels(d)));
      expect({ role, policies: mine.length }).not.toEqual({ role, policies: 0 });
      const [port, admin] = containersOf(d)[0].ports;
      let adminRules = 0;
      for (const p of mine.filter((x) => x.spec.policyTypes.includes('Ingress'))) {
        for (const rule of p.spec.ingress ?? []) {
          const ports = (rule.ports ?? []).map((x: any) => x.port);
          expect(ports.length).toBeGreaterThan(0);
          const open = !rule.from || rule.from.length === 0;
          const onAdmin = admin !== undefined && ports.some((x: unknown) => x === admin.name || x === admin.containerPort);
          if (onAdmin) {
            // The management API and /metrics: Prometheus and labelled API clients, never everyone.
            adminRules += 1;
            expect({ role, open }).toEqual({ role, open: false });
            for (const f of rule.from) expect(JSON.stringify(f)).toMatch(/prometheus|monitoring|api-client/);
            continue;
          }
          for (const x of ports) expect([port.name, port.containerPort]).toContain(x);
          if (role === 'ingress') continue;
          expect({ role, open }).toEqual({ role, open: false });
          for (const f of rule.from) expect(JSON.stringify(f)).toMatch(/prometheus|monitoring/);
        }
      }
      // Prometheus must reach the port /metrics is on.
      if (admin !== undefined) expect({ role, adminRules }).toEqual({ role, adminRules: 1 });
    }
  });

  test('egress: DNS, Redis and NATS for every role; public addresses only for executors (the ingress asks them to discover), never private ranges or metadata', () => {
    const policies = of(objs, 'NetworkPolicy').filter((p) => p.spec.policyTypes.includes('Egress'));
    for (const d of hookyardDeployments(objs)) {
      const role = d.metadata.labels![COMPONENT];
      const rules = policies.filter((p) => selects(p.spec.podSelector, podLabels(d))).flatMap((p) => p.spec.egress ?? []);
      expect({ role, rules: rules.length > 0 }).toEqual({ role, rules: true });
      const ports = rules.filter((r: any) => !r.to).flatMap((r: any) => (r.ports ?? []).map((x: any) => x.port));
      expect(ports).toEqual(expect.arrayContaining([53, 6379, 4222]));
      // No rule opens every destination on every port.
      for (const r of rules) expect(Boolean(r.to) || Boolean(r.ports)).toBe(true);
      const blocks = rules.flatMap((r: any) => (r.to ?? []).map((t: any) => t.ipBlock).filter(Boolean));
      if (role === 'scheduler' || role === 'ingress') expect({ role, blocks }).toEqual({ role, blocks: [] });
      else {
        const v4 = blocks.find((b: any) => b.cidr === '0.0.0.0/0');
        expect(v4.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
      }
    }
  });

  if (overlay === 'prod') {
    test('prod runs more replicas than the base and no datastores of its own', () => {
      const base = render('base');
      const replicas = (objs2: K8sObject[], r: string) => of(objs2, 'Deployment').find((d) => d.metadata.name === `hookyard-${r}`)!.spec.replicas;
      for (const r of ROLES) expect(replicas(objs, r)).toBeGreaterThan(replicas(base, r));
      expect(hookyardDeployments(objs)).toHaveLength(of(objs, 'Deployment').length);
      expect(of(objs, 'PersistentVolumeClaim')).toEqual([]);
    });
  }
});
