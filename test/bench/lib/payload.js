'use strict';
/** GitHub-style event bodies of a given size, built the same way in every process. */

function githubEvent(n = 1) {
  return {
    action: 'opened',
    number: n,
    pull_request: {
      id: 1000 + n,
      number: n,
      state: 'open',
      title: 'Bump the dependency and tidy the build',
      user: { login: 'octocat', id: 583231, type: 'User', site_admin: false },
      labels: [
        { id: 1, name: 'dependencies', color: 'ededed' },
        { id: 2, name: 'ready-for-review', color: '0e8a16' },
      ],
      draft: false,
      base: { ref: 'main', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e', repo: { full_name: 'octo-org/hello-world' } },
      head: { ref: 'deps/bump', sha: 'c2d5e8f1a7b9c0d3e4f5a6b7c8d9e0f1a2b3c4d5' },
      additions: 12,
      deletions: 3,
      changed_files: 2,
    },
    repository: { id: 1296269, name: 'hello-world', full_name: 'octo-org/hello-world', private: false, default_branch: 'main', topics: ['webhooks', 'bench'] },
    organization: { login: 'octo-org', id: 9919 },
    sender: { login: 'octocat', id: 583231, type: 'User' },
  };
}

/** A JSON body of about `bytes` bytes (never less than the bare event): a GitHub event padded with a body text. */
function jsonBody(bytes, n = 1) {
  const ev = githubEvent(n);
  const base = Buffer.byteLength(JSON.stringify({ ...ev, body: '' }));
  const pad = Math.max(0, bytes - base);
  const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. ';
  ev.body = filler.repeat(Math.ceil(pad / filler.length)).slice(0, pad);
  return JSON.stringify(ev);
}

module.exports = { githubEvent, jsonBody };
